#!/usr/bin/env python3
"""Function lengths in C++ source, for the 60-line limit of docs/architecture.md (scripts/layers.py uses it).

A brace-matching scan, not a parser. Comments, string and character literals and preprocessor lines are blanked
first (newlines kept, so line numbers hold). Then each `{` is judged by the text before it since the last `;`,
`{` or `}` (braces of initializers skipped inside that text are kept in it, so `Foo() : a_{1} {` is seen whole):
- a function body when that text ends in `)` plus qualifiers (const, noexcept, override, final, `-> T`) or a
  constructor's initializer list, is not a lambda (`](`), an assignment (`= ...(`) or a control statement;
- a scope to look inside when it names a namespace, class, struct, union or `extern "C"`;
- anything else (an enum, an initializer, a table) is skipped whole.
A function's length is the number of lines strictly between its opening and closing brace; lambdas and local
classes count toward the function around them. A body of at most 3 statements is a table (data, such as a finding
docs table: one initializer and its return) and counts 0: the docs allow long tables. Limits: a raw string literal spanning lines is blanked only on
its first line's quotes (its braces balance in practice); macros that expand to braces are not seen; two
functions of one name in one file are one entry (the longest is reported).
Usage: scripts/function_lengths.py FILE...   prints NAME LINES for each function, longest first."""
import re
import signal
import sys

COMMENT_OR_LITERAL = re.compile(
    r'//[^\n]*|/\*.*?\*/|R"(?P<d>[^(\s]*)\(.*?\)(?P=d)"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
PREPROCESSOR = re.compile(r"^[ \t]*#[^\n]*(?:\\\n[^\n]*)*", re.M)
SCOPE = re.compile(r'\b(namespace|class|struct|union)\b|extern\s+""')
CONTROL = re.compile(r"^\s*(if|for|while|switch|catch|do|else|try|return)\b")
QUALIFIERS = r"(?:\s|const\b|volatile\b|noexcept\b(?:\s*\([^()]*\))?|override\b|final\b|mutable\b|&&?|->[^{;]*)*"
TABLE_STATEMENTS = 3  # a body with no more statements than this is a table (data), and counts 0 lines
NAME = re.compile(r"((?:[A-Za-z_]\w*\s*::\s*)*~?(?:operator\s*(?:\(\)|[^\s(]+)|[A-Za-z_]\w*))\s*\($")


def blank(text):
    """The text with comments, literals and preprocessor lines turned to spaces, newlines kept."""
    keep_lines = lambda m: re.sub(r"[^\n]", " ", m.group(0))
    text = COMMENT_OR_LITERAL.sub(keep_lines, text)
    return PREPROCESSOR.sub(keep_lines, text)


def plain_operators(header):
    """Operator names as words ("operator()" -> "operator_call", "operator==" -> "operator_op"): their
    parentheses and '=' are not those of a parameter list or an assignment."""
    header = re.sub(r"\boperator\s*\(\s*\)", "operator_call", header)
    return re.sub(r"\boperator\s*(?:[=!<>+\-*/%^&|~,]+|\[\s*\]|new\b|delete\b)", "operator_op", header)


def parameter_list(header):
    """(name, index of its '(') for the first '(' at depth 0 that follows a name; (None, -1) when none."""
    depth = 0
    for i, c in enumerate(header):
        if c == "(" and depth == 0:
            m = NAME.search(header[: i + 1])
            if m and m.group(1).split("::")[-1].strip() not in ("decltype", "alignas", "__attribute__", "sizeof"):
                return re.sub(r"\s+", "", m.group(1)), i
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
    return None, -1


def closing(text, at):
    """Index of the bracket that closes the one at `at` ('(' or '{'), or the text's end."""
    pair = {"(": ")", "{": "}"}[text[at]]
    depth = 0
    for i in range(at, len(text)):
        depth += {text[at]: 1, pair: -1}.get(text[i], 0)
        if depth == 0:
            return i
    return len(text) - 1


def is_function(header):
    """True when the text before a '{' ends a function's signature: qualifiers after the parameter list, or a
    constructor's initializer list whose last member is complete (`x_(1)`, `y_{2}`; `z_` is a member's brace
    initializer about to open)."""
    header = plain_operators(header)
    if CONTROL.match(header):
        return False
    name, paren = parameter_list(header)
    if not name or "=" in header[:paren] or re.search(r"\]\s*\(", header):  # an assignment, a lambda
        return False
    tail = header[closing(header, paren) + 1 :]
    if re.search(r"(?<!:):(?!:)", tail):
        return tail.rstrip().endswith((")", "}"))
    return re.fullmatch(QUALIFIERS, tail) is not None


def is_table(body):
    """True when a function body is data, not logic: at most TABLE_STATEMENTS statements (`;`, literals already
    blanked), as a docs table `static const std::vector<Doc> docs = {{...}, ...}; return docs;` is."""
    return body.count(";") <= TABLE_STATEMENTS


def functions(text):
    """(name, body lines) for every function body in C++ source text; a class's members as Class::name."""
    text = blank(text)
    found, scopes, start, i = [], [], 0, 0  # scopes: a class's name or "" (a namespace) per open scope
    while i < len(text):
        c = text[i]
        if c in ";}":
            start = i + 1
            if c == "}" and scopes:
                scopes.pop()
        elif c == "{":
            header = text[start:i].strip()
            if is_function(header):
                end = closing(text, i)
                name = "::".join([s for s in scopes if s] + [parameter_list(plain_operators(header))[0]])
                lines = max(0, text.count("\n", i, end) - 1)
                found.append((name, 0 if is_table(text[i + 1 : end]) else lines))
                i, start = end, end + 1
            elif SCOPE.search(header):
                m = re.search(r"\b(?:class|struct|union)\s+(?:\[\[[^\]]*\]\]\s*)?([A-Za-z_]\w*)", header)
                scopes.append(m.group(1) if m else "")
                start = i + 1
            else:
                i = closing(text, i)  # an initializer or an enum: stays in the text before the next '{'
        i += 1
    return found


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the listing quietly
    rows = []
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8", errors="replace") as f:
            rows += [(n, path, lines) for n, lines in functions(f.read())]
    for name, path, lines in sorted(rows, key=lambda r: -r[2]):
        print(f"{lines:5d} {path}:{name}")


if __name__ == "__main__":
    main()
