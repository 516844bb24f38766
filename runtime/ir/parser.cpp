#include "runtime/ir/parser.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "jit/error.h"
#include "runtime/ir/builder.h"
#include "runtime/ir/lexer.h"
#include "runtime/ir/literal.h"
#include "runtime/ir/precedence.h"
#include "runtime/ir/string_map.h"

namespace augur::ir {

namespace {

// Deeper nesting (blocks, parentheses, prefix operators, `else if` chains) and
// taller expression trees (`x + x + ...`, built without recursion) are
// rejected, so that no input can exhaust the stack of the parser or of the
// recursive passes that later walk what it built.
constexpr int kMaxNesting = 256;
constexpr int kMaxHeight = 1000;

// An expression and the height of its tree.
struct Node {
  ExprPtr expr;
  int height = 1;
};

int above(std::initializer_list<int> heights) {
  return 1 + std::max(heights);
}

int above(const std::vector<Node>& nodes) {
  int height = 0;
  for (const Node& n : nodes) height = std::max(height, n.height);
  return height + 1;
}

std::vector<ExprPtr> exprs_of(const std::vector<Node>& nodes) {
  std::vector<ExprPtr> out;
  out.reserve(nodes.size());
  for (const Node& n : nodes) out.push_back(n.expr);
  return out;
}

std::string position(int line, int column) {
  return std::to_string(line) + ":" + std::to_string(column);
}

// The operator of enum Op, up to `last`, spelled `name`.
template <class Op>
std::optional<Op> op_named(std::string_view name, Op last) {
  for (int i = 0; i <= static_cast<int>(last); ++i) {
    if (name_of(static_cast<Op>(i)) == name) return static_cast<Op>(i);
  }
  return std::nullopt;
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view file) : lexer_(text, std::string(file)) {
    tok_ = lexer_.next();
  }

  Module module() {
    while (tok_.kind != TokenKind::End) {
      if (at("extern")) {
        extern_decl();
      } else if (at("fn") || at("kernel")) {
        function();
      } else {
        fail_found(tok_, {"expected 'fn', 'kernel fn' or 'extern fn'"});
      }
    }
    return std::move(module_);
  }

 private:
  // Counts one level of nesting for as long as it lives.
  class Nesting {
   public:
    explicit Nesting(Parser& parser) : parser_(parser) {
      if (parser_.depth_ == kMaxNesting)
        parser_.fail_too_deep(parser_.tok_, "nesting", kMaxNesting);
      ++parser_.depth_;
    }
    ~Nesting() { --parser_.depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    Parser& parser_;
  };

  // ------------------------------------------------------------ tokens

  bool at(std::string_view text) const {
    return (tok_.kind == TokenKind::Punct || tok_.kind == TokenKind::Name) && tok_.text == text;
  }

  Token advance() {
    previous_ = tok_;
    tok_ = lexer_.next();
    return previous_;
  }

  bool accept(std::string_view text) {
    if (!at(text)) return false;
    advance();
    return true;
  }

  Token expect(std::string_view text, std::string_view context) {
    if (!at(text)) fail_found(tok_, {"expected '", text, "' ", context});
    return advance();
  }

  jit::location where(const Token& t) const {
    return jit::location::in_text(lexer_.file(), t.line, t.column);
  }

  // Error paths are out of line and take their message in pieces, so that the
  // frames of the recursive functions stay small (no std::string temporaries).
  [[noreturn, gnu::noinline, gnu::cold]] void fail(
      const Token& at, std::initializer_list<std::string_view> parts) const {
    std::string message;
    for (std::string_view part : parts) message += part;
    throw jit::parse_error(message, where(at));
  }

  // The message "<expected>, found <token>".
  [[noreturn, gnu::noinline, gnu::cold]] void fail_found(
      const Token& found, std::initializer_list<std::string_view> expected) const {
    std::string message;
    for (std::string_view part : expected) message += part;
    fail(found, {message, ", found ", describe(found)});
  }

  [[noreturn, gnu::noinline, gnu::cold]] void fail_too_deep(const Token& at, std::string_view what,
                                                            int limit) const {
    fail(at, {what, " deeper than ", std::to_string(limit), " levels"});
  }

  [[noreturn, gnu::noinline, gnu::cold]] void rethrow_at(const jit::verify_error& e,
                                                         const Token& at) const {
    throw jit::verify_error(e.message(), where(at));
  }

  // Builds an expression node of the given height with a builder factory; its
  // type errors are reported at `at`.
  template <class Make>
  Node build(const Token& at, int height, Make&& make) const {
    if (height > kMaxHeight) fail_too_deep(at, "expression nested", kMaxHeight);
    try {
      return {make(), height};
    } catch (const jit::verify_error& e) {
      rethrow_at(e, at);
    }
  }

  // ------------------------------------------------------------ declarations

  Type type(std::string_view context) {
    const Token t = tok_;
    const std::optional<Type> scalar =
        t.kind == TokenKind::Name ? Type::parse(t.text) : std::nullopt;
    if (!scalar) {
      fail_found(t, {"expected a type ", context});
    }
    advance();
    if (!at("*")) return *scalar;
    if (scalar->is_void()) fail(tok_, {"there are no pointers to void"});
    advance();
    return Type::pointer_to(scalar->scalar());
  }

  // Functions and externs may have any name but a keyword: nothing refers to a
  // function, and calls mark extern names with '@'.
  Token global_name(std::string_view context) {
    if (tok_.kind != TokenKind::Name || is_keyword(tok_.text)) {
      fail_found(tok_, {"expected a name ", context});
    }
    return advance();
  }

  void extern_decl() {
    advance();
    expect("fn", "after 'extern'");
    const Token name = global_name("after 'extern fn'");
    ExternFn decl;
    decl.name = std::string(name.text);
    expect("(", "after the extern's name");
    if (!at(")")) {
      do {
        decl.params.push_back(type("for an extern parameter"));
      } while (accept(","));
    }
    expect_list_end("parameter type");
    expect("->", "after the extern's parameters");
    decl.ret = type("after '->'");
    if (accept("pure")) {
      decl.effect = Effect::Pure;
    } else if (accept("readonly")) {
      decl.effect = Effect::ReadOnly;
    } else if (accept("effect")) {
      decl.effect = Effect::Effectful;
    } else {
      fail_found(tok_, {"expected 'pure', 'readonly' or 'effect' after the extern's return type"});
    }
    expect(";", "after extern declaration");
    if (ExternRef existing = module_.find_extern(decl.name)) {
      if (*existing != decl) {
        fail(name, {"extern '", decl.name, "' is already declared with another signature"});
      }
      return;
    }
    module_.declare_extern(std::move(decl));
  }

  void function() {
    fn_ = Function{};
    var_ids_.clear();
    declared_at_.clear();
    in_scope_.clear();
    fn_.kernel = accept("kernel");
    expect("fn", "after 'kernel'");
    const Token name = global_name("after 'fn'");
    fn_.name = std::string(name.text);
    if (!function_names_.insert(fn_.name).second)
      fail(name, {"function '", fn_.name, "' is already defined"});
    expect("(", "after the function's name");
    open_scope();
    if (!at(")")) {
      do {
        const Token param = variable_name("for a parameter");
        expect(":", "after the parameter's name");
        declare(param, type("after ':'"), VarKind::Param);
      } while (accept(","));
    }
    expect_list_end("parameter");
    fn_.num_params = static_cast<std::uint32_t>(fn_.vars.size());
    expect("->", "after the parameters");
    fn_.ret = type("after '->'");
    fn_.body = block("to open the function body");
    close_scope();
    module_.functions.push_back(std::move(fn_));
  }

  void expect_list_end(std::string_view item) {
    if (!at(")")) {
      fail_found(tok_, {"expected ',' or ')' after ", item});
    }
    advance();
  }

  // ------------------------------------------------------------ variables

  Token variable_name(std::string_view context) {
    if (tok_.kind != TokenKind::Name) {
      fail_found(tok_, {"expected a variable name ", context});
    }
    if (is_reserved(tok_.text)) {
      fail(tok_, {"'", tok_.text, "' is reserved and cannot name a variable"});
    }
    return advance();
  }

  VarId declare(const Token& name, Type type, VarKind kind, std::uint32_t shared_count = 0) {
    if (auto it = var_ids_.find(name.text); it != var_ids_.end()) {
      const auto [line, column] = declared_at_[it->second.index];
      fail(name, {"variable '", name.text, "' is already declared at ", position(line, column)});
    }
    const VarId id{static_cast<std::uint32_t>(fn_.vars.size())};
    fn_.vars.push_back({std::string(name.text), type, kind, shared_count});
    var_ids_.emplace(std::string(name.text), id);
    declared_at_.emplace_back(name.line, name.column);
    in_scope_.push_back(true);
    scope_vars_.push_back(id);
    return id;
  }

  void open_scope() { scope_starts_.push_back(scope_vars_.size()); }

  void close_scope() {
    for (std::size_t i = scope_starts_.back(); i < scope_vars_.size(); ++i) {
      in_scope_[scope_vars_[i].index] = false;
    }
    scope_vars_.resize(scope_starts_.back());
    scope_starts_.pop_back();
  }

  Node variable(const Token& t) {
    const auto it = var_ids_.find(t.text);
    if (it == var_ids_.end()) fail(t, {"unknown variable '", t.text, "'"});
    const VarId id = it->second;
    if (!in_scope_[id.index]) {
      const auto [line, column] = declared_at_[id.index];
      fail(t, {"variable '", t.text, "' is not in scope here (declared at ", position(line, column),
               ")"});
    }
    return build(t, 1, [&] { return read(id, fn_.vars[id.index].type); });
  }

  // ------------------------------------------------------------ statements

  Block block(std::string_view context) {
    const Nesting nesting(*this);
    const Token open = expect("{", context);
    open_scope();
    Block out;
    while (!at("}")) {
      if (tok_.kind == TokenKind::End || at("fn") || at("kernel") || at("extern")) {
        fail_found(
            tok_, {"expected '}' to close the block opened at ", position(open.line, open.column)});
      }
      statement(out);
    }
    advance();
    close_scope();
    return out;
  }

  bool starts_expression() const {
    switch (tok_.kind) {
      case TokenKind::Number:
        return true;
      case TokenKind::Name:
        return !is_keyword(tok_.text);
      case TokenKind::Punct:
        return at("(") || at("-") || at("~") || at("!") || at("@");
      case TokenKind::End:
        return false;
    }
    return false;
  }

  void statement(Block& out) {
    if (at("var")) {
      out.push_back(var_decl());
      expect(";", "after variable declaration");
    } else if (at("shared")) {
      out.push_back(shared_decl());
      expect(";", "after shared array declaration");
    } else if (at("if")) {
      out.push_back(if_stmt());
    } else if (at("while")) {
      out.push_back(while_stmt());
    } else if (at("for")) {
      out.push_back(for_stmt());
    } else if (accept("break")) {
      const std::uint32_t levels = exit_levels();
      expect(";", "after 'break'");
      out.push_back(Stmt::break_(levels));
    } else if (accept("continue")) {
      const std::uint32_t levels = exit_levels();
      expect(";", "after 'continue'");
      out.push_back(Stmt::continue_(levels));
    } else if (accept("barrier")) {
      expect(";", "after 'barrier'");
      out.push_back(Stmt::barrier());
    } else if (at("return")) {
      advance();
      ExprPtr value = at(";") ? nullptr : expression().expr;
      expect(";", value ? "after return value" : "after 'return'");
      out.push_back(Stmt::return_(std::move(value)));
    } else {
      out.push_back(simple("a statement"));
      const StmtKind kind = out.back().kind;
      expect(";", kind == StmtKind::Assign  ? "after assignment"
                  : kind == StmtKind::Store ? "after store"
                                            : "after expression");
    }
  }

  // A variable declaration, assignment, store or expression, without its ';'.
  Stmt simple(std::string_view what) {
    if (at("var")) return var_decl();
    if (!starts_expression()) {
      fail_found(tok_, {"expected ", what});
    }
    const Token start = tok_;
    const Node target = expression();
    if (!at("=")) return Stmt::eval(target.expr);
    advance();
    ExprPtr value = expression().expr;
    if (target.expr->kind == ExprKind::Var) return Stmt::assign(target.expr->var, std::move(value));
    if (target.expr->kind == ExprKind::Load) {
      return Stmt::store(target.expr->args[0], target.expr->args[1], std::move(value));
    }
    fail(start, {"the left side of '=' must be a variable or an element p[i]"});
  }

  Stmt var_decl() {
    advance();
    const Token name = variable_name("after 'var'");
    expect(":", "after the variable's name");
    const Type var_type = type("after ':'");
    // The initializer is parsed first: a variable is not visible in its own initializer.
    ExprPtr init = accept("=") ? expression().expr : nullptr;
    return Stmt::decl(declare(name, var_type, VarKind::Local), std::move(init));
  }

  Stmt shared_decl() {
    const Token word = advance();
    if (!fn_.kernel) fail(word, {"shared arrays are only allowed in kernels"});
    const Token name = variable_name("after 'shared'");
    expect(":", "after the shared array's name");
    const Token elem_token = tok_;
    const Type elem = type("after ':'");
    if (elem.is_pointer() || elem.is_void()) {
      fail(elem_token,
           {"a shared array's elements must be bool, integers or floats, not ", elem.name()});
    }
    expect("[", "after the shared array's element type");
    const Token count = tok_;
    std::uint32_t elements = 0;
    const auto [end, ec] =
        std::from_chars(count.text.data(), count.text.data() + count.text.size(), elements);
    if (count.kind != TokenKind::Number || ec != std::errc() ||
        end != count.text.data() + count.text.size() || elements == 0) {
      fail_found(count, {"expected the number of elements (1 to 4294967295, no suffix)"});
    }
    advance();
    expect("]", "after the number of elements");
    return Stmt::decl(declare(name, Type::pointer_to(elem.scalar()), VarKind::Shared, elements));
  }

  // The loops a break or continue leaves: `break 2;`; 1 when no number follows.
  std::uint32_t exit_levels() {
    if (tok_.kind != TokenKind::Number) return 1;
    const Token count = tok_;
    std::uint32_t levels = 0;
    const auto [end, ec] =
        std::from_chars(count.text.data(), count.text.data() + count.text.size(), levels);
    if (ec != std::errc() || end != count.text.data() + count.text.size() || levels == 0) {
      fail_found(count, {"expected the number of loops to leave (1 to 4294967295, no suffix)"});
    }
    advance();
    return levels;
  }

  Stmt if_stmt() {
    advance();
    expect("(", "after 'if'");
    ExprPtr cond = expression().expr;
    expect(")", "after if condition");
    Block then_block = block("after if condition");
    Block else_block;
    if (accept("else")) {
      if (at("if")) {
        const Nesting nesting(*this);
        else_block.push_back(if_stmt());
      } else {
        else_block = block("after 'else'");
      }
    }
    return Stmt::if_(std::move(cond), std::move(then_block), std::move(else_block));
  }

  Stmt while_stmt() {
    advance();
    expect("(", "after 'while'");
    ExprPtr cond = expression().expr;
    expect(")", "after while condition");
    return Stmt::while_(std::move(cond), block("after while condition"));
  }

  Stmt for_stmt() {
    advance();
    expect("(", "after 'for'");
    open_scope();  // a variable declared in the header is visible only in the loop
    Block init;
    if (!at(";")) init.push_back(simple("a for initializer"));
    expect(";", "after for initializer");
    ExprPtr cond = expression().expr;
    expect(";", "after for condition");
    Block step;
    if (!at(")")) step.push_back(simple("a for step"));
    expect(")", "after for step");
    Block body = block("after for header");
    close_scope();
    return Stmt::for_(std::move(init), std::move(cond), std::move(step), std::move(body));
  }

  // ------------------------------------------------------------ expressions

  Node expression() {
    const Nesting nesting(*this);
    Node cond = binary_expr(kLoosestBinary);
    if (!at("?")) return cond;
    const Token question = advance();
    Node then_value = expression();
    expect(":", "after the first branch of '?:'");
    Node else_value = expression();  // right-associative
    return build(question, above({cond.height, then_value.height, else_value.height}),
                 [&] { return select(cond.expr, then_value.expr, else_value.expr); });
  }

  Node binary_expr(int min_level) {
    Node lhs = unary_expr();
    while (tok_.kind == TokenKind::Punct) {
      const std::optional<BinaryOp> op = binary_op_named(tok_.text);
      if (!op || level_of(*op) < min_level) break;
      const Token op_token = advance();
      Node rhs = binary_expr(level_of(*op) + 1);
      lhs = build(op_token, above({lhs.height, rhs.height}),
                  [&] { return binary(*op, lhs.expr, rhs.expr); });
    }
    return lhs;
  }

  Node unary_expr() {
    std::optional<UnaryOp> op;
    if (at("-")) op = UnaryOp::Neg;
    if (at("~")) op = UnaryOp::BitNot;
    if (at("!")) op = UnaryOp::Not;
    if (!op) return postfix_expr();
    const Nesting nesting(*this);
    const Token op_token = advance();
    Node operand = unary_expr();
    return build(op_token, above({operand.height}), [&] { return unary(*op, operand.expr); });
  }

  Node postfix_expr() {
    Node base = primary();
    while (at("[")) {
      const Token open = advance();
      Node index = expression();
      expect("]", "after index");
      base = build(open, above({base.height, index.height}),
                   [&] { return load(base.expr, index.expr); });
    }
    return base;
  }

  // A parenthesized argument list after the callee's name (the previous token).
  std::vector<Node> arguments() {
    if (!at("(")) fail_found(tok_, {"expected '(' after '", previous_.text, "'"});
    advance();
    std::vector<Node> args;
    if (!at(")")) {
      do {
        args.push_back(expression());
      } while (accept(","));
    }
    expect_list_end("argument");
    return args;
  }

  Node primary() {
    const Token t = tok_;
    switch (t.kind) {
      case TokenKind::Number: {
        advance();
        LiteralRead literal = read_number(t.text);
        if (!literal.value) fail(t, {literal.error});
        return {std::move(literal.value), 1};
      }
      case TokenKind::Name:
        return named(t);
      case TokenKind::Punct:
        if (at("(")) {
          advance();
          Node inner = expression();
          expect(")", "to close '('");
          return inner;
        }
        if (at("@")) return extern_call();
        break;
      case TokenKind::End:
        break;
    }
    fail_found(t, {"expected expression"});
  }

  Node extern_call() {
    const Token at_sign = advance();
    if (tok_.kind != TokenKind::Name) {
      fail_found(tok_, {"expected an extern's name after '@'"});
    }
    const Token name = advance();
    ExternRef callee = module_.find_extern(name.text);
    if (!callee) {
      fail(name, {"unknown extern '", name.text,
                  "' (externs are declared with 'extern fn' before their use)"});
    }
    std::vector<Node> args = arguments();
    return build(at_sign, above(args), [&] { return call(callee, exprs_of(args)); });
  }

  // A primary starting with a name: a constant word, a cast, an intrinsic, or a variable.
  Node named(const Token& t) {
    advance();
    if (ExprPtr c = read_word_constant(t.text)) {
      if (t.text.starts_with("nan_") && at("(")) return nan_payload(c->type);
      return {std::move(c), 1};
    }
    if (t.text == "table" && tok_.kind == TokenKind::Name && Type::parse(tok_.text)) {
      return table_literal(t);
    }
    if (t.text == "null") {
      expect("(", "after 'null'");
      const Type pointer = type("in null(...)");
      expect(")", "after the type of null");
      return build(t, 1, [&] { return null_pointer(pointer); });
    }
    if (const std::optional<Type> scalar = Type::parse(t.text)) {
      Type to = *scalar;
      if (at("*")) {
        if (to.is_void()) fail(tok_, {"there are no pointers to void"});
        advance();
        to = Type::pointer_to(to.scalar());
      }
      std::vector<Node> args = arguments();
      if (args.size() != 1) {
        fail(t, {"a cast to ", to.name(), " takes one operand, got ", std::to_string(args.size())});
      }
      return build(t, above(args), [&] { return cast(to, args[0].expr); });
    }
    if (auto op = op_named(t.text, MathOp::Fma)) {
      std::vector<Node> args = arguments();
      return build(t, above(args), [&] { return math(*op, exprs_of(args)); });
    }
    if (auto op = op_named(t.text, AtomicOp::Cas)) {
      std::vector<Node> args = arguments();
      return build(t, above(args), [&] { return atomic(*op, exprs_of(args)); });
    }
    const std::string_view base = t.text.substr(0, t.text.find('.'));
    if (auto which = op_named(base, GpuIndex::GridDim)) {
      const std::string_view axis = t.text.substr(base.size());
      const std::size_t axis_index = axis == ".x" ? 0 : axis == ".y" ? 1 : axis == ".z" ? 2 : 3;
      if (axis_index > 2) {
        fail_found(t, {"expected ", base, ".x, .y or .z"});
      }
      return build(t, 1, [&] { return gpu_index(*which, static_cast<unsigned>(axis_index)); });
    }
    if (is_keyword(t.text)) fail_found(t, {"expected expression"});
    if (at("(")) {
      fail(t, {"unknown function '", t.text, "' (externs are called as @", t.text, "(...))"});
    }
    return variable(t);
  }

  // table <scalar> [constant, ...] after the word `table`: its elements are
  // literals of the element type.
  Node table_literal(const Token& t) {
    const Token type_token = tok_;
    const Type element = type("after 'table'");
    if (element.is_void() || element.is_pointer()) {
      fail(type_token, {"a table's elements must be scalars, not ", element.name()});
    }
    expect("[", "after the table's element type");
    std::vector<std::byte> bytes;
    do {
      const Token at = tok_;
      Node value = expression();
      if (value.expr->kind != ExprKind::Const || value.expr->type != element) {
        fail(at, {"a table of ", element.name(), " holds ", element.name(), " literals"});
      }
      const std::uint64_t bits = value.expr->bits;
      const auto* raw = reinterpret_cast<const std::byte*>(&bits);
      bytes.insert(bytes.end(), raw, raw + element.size());
      if (bytes.size() > kMaxTableBytes) fail(at, {"a table larger than the limit of 16 MiB"});
    } while (accept(","));
    expect("]", "to close the table");
    return build(t, 1, [&] { return table(element, std::move(bytes)); });
  }

  Node nan_payload(Type type) {
    advance();
    const Token bits = tok_;
    if (bits.kind != TokenKind::Number) {
      fail_found(bits, {"expected the bits of the NaN in hex"});
    }
    advance();
    LiteralRead nan = read_nan_payload(type, bits.text);
    if (!nan.value) fail(bits, {nan.error});
    expect(")", "after the NaN's bits");
    return {std::move(nan.value), 1};
  }

  Lexer lexer_;
  Token tok_;
  Token previous_;
  Module module_;
  std::unordered_set<std::string> function_names_;
  int depth_ = 0;

  // The function being parsed: its variables by name, where each was
  // declared, and which are in scope (scope_vars_ lists those declared in the
  // open scopes; scope_starts_ marks where each scope begins in it).
  Function fn_;
  StringMap<VarId> var_ids_;
  std::vector<std::pair<int, int>> declared_at_;
  std::vector<bool> in_scope_;
  std::vector<VarId> scope_vars_;
  std::vector<std::size_t> scope_starts_;
};

}  // namespace

Module parse_module(std::string_view text, std::string_view file) {
  return Parser(text, file).module();
}

}  // namespace augur::ir
