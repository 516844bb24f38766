// Rewrite rules for your own operations, applied by the PEG optimizer.
//
// A DSL that calls host functions (jit::register_external) knows algebra the
// compiler cannot: that transpose(transpose(A)) is A, that A·I is A. Declare
// those functions `pure` when registering them, then state the algebra as
// rules; the optimizer applies them during equality saturation, together with
// its own axioms, and keeps whichever equal program is cheapest (a call
// costs far more than arithmetic).
//
//   jit::register_rule("transpose-involution", "(transpose (transpose ?a)) => ?a");
//   jit::register_rule("matmul-identity", "(matmul ?a (identity ?n)) => ?a");
//   jit::register_rule("matvec-assoc", "(matvec (matmul ?a ?b) ?v) => (matvec ?a (matvec ?b ?v))");
//
// Syntax: `lhs => rhs`, each side an s-expression (egg's pattern syntax).
// `?name` is a variable; a call to a registered extern is written with its
// bare name; constants are IR literals with their type (`0i32`, `1.0f64`);
// the IR's own operators carry their type, `add.f64`, `mul.i32`, `lt.u8`
// (operand type). A pattern of a commutative IR operator (add, mul, and, or,
// xor, eq, ne; min and max on integers) matches either order of its
// operands: "(mul.f64 ?x 1.0f64)" also matches 1.0 * x. Calls to externs
// match in the order written. Every extern a rule names must be registered with the
// effect `pure` (only pure calls are values the optimizer may merge, move or
// drop). A rule must be an equality of your functions' results: the
// optimizer trusts it.
//
// Registration is process-wide and thread-safe; rules apply to functions
// compiled after it. The rules are not part of jit::compile's in-memory key:
// a request the cache already holds returns the version compiled before
// (jit::clear_cache() first to recompile it). The disk cache's key includes
// them, so another process never loads code optimized under other rules.
// Registering a name again replaces its rule.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace jit {

// Registers `rule` ("lhs => rhs") under `name`. Throws jit::parse_error if
// it is not a well-formed rule.
void register_rule(std::string name, std::string_view rule);

// Removes the rule registered under `name`; returns whether there was one.
bool unregister_rule(std::string_view name);

// The names of the registered rules, in registration order.
std::vector<std::string> registered_rules();

}  // namespace jit
