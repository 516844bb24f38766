// Let-insertion: the staged program's expressions are DAGs (the pool shares
// every repeated subexpression, and `acc = acc + acc` on a dyn_expr doubles
// the tree per step while adding one node), but the IR's text, hash,
// optimizer and backends read each statement's expressions as trees. This
// pass binds each non-leaf node that one statement reaches more than once to
// a fresh local declared just before the statement (`var v = e;`, its uses
// read v), so every statement is a tree the size of its DAG.
//
// It binds within one statement only: a dyn_expr reads variables where it is
// used, so a value computed for one statement is not the value of the next.
// Binding evaluates the node before the statement, once; so a node is bound
// only if that is what the statement does anyway:
//  - never a node holding an atomic or a call that is not pure (each use is
//    an evaluation of its own);
//  - a node reached only where evaluation is lazy (an arm of a select, the
//    right operand of && or ||) only if it cannot trap or read memory (no
//    load, no integer division or remainder);
//  - in a statement with an atomic or an effectful call, only nodes that
//    cannot trap or read memory, so that loads and traps keep their order
//    with the effect.
// Conditions of while and for loops, evaluated on every iteration, become
// `while (true) { lets; if (!cond) break; body }` (for: the same with its
// init and step, so continue still runs the step before the bindings). A
// for's step, which must stay a single statement, is not bound: tidying
// makes no for whose step shares nodes.
#pragma once

#include "runtime/ir/ir.h"

namespace augur::stage {

// Binds shared subexpressions in every statement of `fn`. New locals have no
// name (finalize names them var0, var1, ... with the other unnamed ones).
// Time and memory O(each statement's DAG); no recursion on expression depth.
void insert_lets(ir::Function& fn);

// Whether some non-leaf node is reached more than once from `root`.
bool shares_nodes(const ir::Expr& root);

}  // namespace augur::stage
