# The shape of the hugeld command's package (tools/hugeld), read with the
# ast module, stdlib unittest.
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run by tests/t-pyunit.sh (make check):
#   python3 -m unittest discover -s tests/unit -p 'test_*.py'
#
# - no import cycle between the package's modules;
# - no import statement inside a function or class (only the optional
#   dependencies in OPTIONAL, each with a comment where it is imported);
# - no command module imports another (what commands share is in the
#   core modules, cache/ or report/);
# - argparse only in cli.py, and none of its internals (names with an
#   underscore): no command line is built to ask a question;
# - no file over MAX_LINES lines and no function over MAX_FUNCTION_LINES:
#   each file can be read whole;
# - no change to the running process's environment (a child that needs
#   another environment gets a new dict).

import ast
import os
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PKG = os.path.join(TOP, "tools", "hugeld")

# (module, imported name) of the imports allowed inside a function: an
# optional dependency, imported where it is used, with a comment saying
# so.  Empty: the package uses the standard library only.
OPTIONAL = set()

# The longest file of the package, and the longest function (its def
# line to its last line, docstring and comments included).
MAX_LINES = 500
MAX_FUNCTION_LINES = 80

# os.environ methods that change it, and the os functions that do.
ENV_METHODS = {"pop", "popitem", "clear", "update", "setdefault",
               "__setitem__", "__delitem__"}
ENV_FUNCS = {"putenv", "unsetenv"}


def modules():
    """{dotted module name: path} for every .py file of the package."""
    out = {}
    for d, dirs, files in os.walk(PKG):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(d, f), os.path.dirname(PKG))
            parts = rel[:-3].split(os.sep)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = os.path.relpath(os.path.join(d, f), TOP)
    return out


def parse(path):
    with open(os.path.join(TOP, path), encoding="utf-8") as f:
        return ast.parse(f.read(), path)


def is_package(mods, name):
    return mods.get(name, "").endswith("__init__.py")


def imported(mods, name, node):
    """The package's modules that the import NODE in module NAME loads
    (for `from X import Y', Y if it is a module, else X)."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names if a.name in mods}
    if node.level:
        base = name.split(".") if is_package(mods, name) \
            else name.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + (node.module.split(".") if node.module
                                  else []))
    else:
        target = node.module or ""
    if target not in mods:
        return set()
    out = set()
    for a in node.names:
        sub = target + "." + a.name
        out.add(sub if sub in mods else target)
    return out


def function_imports(tree):
    """The import nodes inside a function or class of TREE."""
    out = []

    def walk(node, inside):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)) and inside:
                out.append(child)
            walk(child, inside or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                        ast.ClassDef)))
    walk(tree, False)
    return out


def is_os_environ(node):
    return isinstance(node, ast.Attribute) and node.attr == "environ" \
        and isinstance(node.value, ast.Name) and node.value.id == "os"


def env_changes(tree):
    """(line, what) for each place TREE changes os.environ."""
    out = []
    for n in ast.walk(tree):
        targets = []
        if isinstance(n, ast.Delete):
            targets = [(t, "del") for t in n.targets]
        elif isinstance(n, ast.Assign):
            targets = [(t, "assignment") for t in n.targets]
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
            targets = [(n.target, "assignment")]
        for t, what in targets:
            if is_os_environ(t) or (isinstance(t, ast.Subscript)
                                    and is_os_environ(t.value)):
                out.append((n.lineno, "os.environ %s" % what))
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            f = n.func
            if is_os_environ(f.value) and f.attr in ENV_METHODS:
                out.append((n.lineno, "os.environ.%s" % f.attr))
            if f.attr in ENV_FUNCS and isinstance(f.value, ast.Name) \
                    and f.value.id == "os":
                out.append((n.lineno, "os.%s" % f.attr))
    return out


def cycles(graph):
    """The strongly connected components of GRAPH ({node: set}) that
    are cycles (more than one node, or a node importing itself)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


class PackageShape(unittest.TestCase):
    """tools/hugeld: layers without a circle, settings without side
    effects."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.mods = modules()
        cls.trees = {m: parse(p) for m, p in cls.mods.items()}

    def graph(self):
        g = {}
        for m, t in self.trees.items():
            g[m] = set()
            for n in ast.walk(t):
                if isinstance(n, (ast.Import, ast.ImportFrom)):
                    g[m] |= imported(self.mods, m, n)
            g[m].discard(m)
        return g

    def test_the_checker_sees_a_cycle(self):
        self.assertEqual(cycles({"a": {"b"}, "b": {"c"}, "c": {"a"},
                                 "d": {"a"}}), [["a", "b", "c"]])
        self.assertEqual(cycles({"a": {"b"}, "b": set()}), [])

    def test_no_import_cycle(self):
        g = self.graph()
        # The checker resolves relative imports: a few edges it must see.
        self.assertIn("hugeld.common", g["hugeld.cli"])
        self.assertTrue(any(m.startswith("hugeld.") and m != "hugeld.common"
                            for m in g["hugeld.cli"]), g["hugeld.cli"])
        found = cycles(g)
        self.assertEqual(found, [], "modules that import each other, "
                         "directly or not: %s" % "; ".join(
                             " ".join(c) for c in found))

    def test_no_import_in_a_function(self):
        bad = []
        for m, t in sorted(self.trees.items()):
            for n in function_imports(t):
                names = [a.name for a in n.names]
                if all((m, x) in OPTIONAL for x in names):
                    continue
                bad.append("%s:%d: %s" % (self.mods[m], n.lineno,
                                          ", ".join(names)))
        self.assertEqual(bad, [], "imports inside functions")

    def test_no_command_imports_another(self):
        g = self.graph()
        bad = ["%s imports %s" % (m, ", ".join(sorted(
            x for x in g[m] if x.startswith("hugeld.commands.")
            and x != m)))
               for m in sorted(g) if m.startswith("hugeld.commands.")
               and any(x.startswith("hugeld.commands.") and x != m
                       for x in g[m])]
        self.assertEqual(bad, [], "command modules that import another")

    def test_the_checker_sees_a_command_import(self):
        mods = {"hugeld.commands": "c/__init__.py",
                "hugeld.commands.a": "c/a.py", "hugeld.commands.b": "c/b.py"}
        for code in ("from .b import x", "from . import b",
                     "from ..commands.b import x"):
            n = ast.parse(code).body[0]
            self.assertEqual(imported(mods, "hugeld.commands.a", n),
                             {"hugeld.commands.b"}, code)

    def test_argparse_in_cli_only_and_no_internals(self):
        bad = []
        for m, t in sorted(self.trees.items()):
            for n in ast.walk(t):
                if m != "hugeld.cli" and (
                        isinstance(n, ast.Import) and any(
                            a.name == "argparse" for a in n.names)
                        or isinstance(n, ast.ImportFrom)
                        and n.module == "argparse"):
                    bad.append("%s:%d: imports argparse" % (self.mods[m],
                                                            n.lineno))
                name = n.attr if isinstance(n, ast.Attribute) else \
                    n.id if isinstance(n, ast.Name) else None
                if name in ("_actions", "_format_text", "_expand_help",
                            "_SubParsersAction", "ngettext") or (
                        isinstance(n, ast.Attribute) and isinstance(
                            n.value, ast.Name) and n.value.id == "argparse"
                        and n.attr.startswith("_")):
                    bad.append("%s:%d: %s" % (self.mods[m], n.lineno, name))
        self.assertEqual(bad, [], "argparse outside cli.py, or its "
                         "internals")

    def test_files_and_functions_are_short(self):
        bad = []
        for m, t in sorted(self.trees.items()):
            path = self.mods[m]
            with open(os.path.join(TOP, path), encoding="utf-8") as f:
                n = len(f.read().splitlines())
            if n > MAX_LINES:
                bad.append("%s: %d lines" % (path, n))
            for f in ast.walk(t):
                if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    k = f.end_lineno - f.lineno + 1
                    if k > MAX_FUNCTION_LINES:
                        bad.append("%s:%d: %s (): %d lines" % (
                            path, f.lineno, f.name, k))
        self.assertEqual(bad, [], "over %d lines a file, %d a function"
                         % (MAX_LINES, MAX_FUNCTION_LINES))

    def test_no_change_to_the_environment(self):
        bad = ["%s:%d: %s" % (self.mods[m], line, what)
               for m, t in sorted(self.trees.items())
               for line, what in env_changes(t)]
        self.assertEqual(bad, [], "the process's own environment changed")

    def test_env_checker(self):
        t = ast.parse("import os\ndel os.environ['X']\nos.environ['Y'] = '1'\n"
                      "os.environ.pop('Z', None)\nos.unsetenv('W')\n"
                      "os.putenv('V', '')\nenv = dict(os.environ)\n"
                      "env.pop('X', None)\n")
        self.assertEqual([w for _, w in env_changes(t)],
                         ["os.environ del", "os.environ assignment",
                          "os.environ.pop", "os.unsetenv", "os.putenv"])


if __name__ == "__main__":
    unittest.main()
