#!/usr/bin/env python3
"""A small TextMate tokenizer for the tests: line by line, begin/end rules
with nested patterns, includes from the repository, captures; the earliest
match wins (the end pattern first on a tie), as TextMate does. It runs the
grammar's regular expressions with Python's `re`, so the grammar keeps to
what Oniguruma and `re` read alike.

    tokenize-textmate.py GRAMMAR check FILE...   # every file tokenizes; no 'invalid' scope
    tokenize-textmate.py GRAMMAR show FILE       # one token a line: scopes<TAB>text
"""
import json
import re
import sys


class Grammar:
    def __init__(self, path):
        with open(path) as f:
            self.data = json.load(f)
        self.root = self.data["scopeName"]
        self.cache = {}

    def patterns(self, rules):
        """Rules with includes resolved, each with its compiled regex."""
        resolved = []
        for rule in rules:
            if "include" in rule:
                name = rule["include"]
                if name == "$self":
                    resolved += self.patterns(self.data["patterns"])
                else:
                    target = self.data["repository"][name.lstrip("#")]
                    if "patterns" in target and "begin" not in target and "match" not in target:
                        resolved += self.patterns(target["patterns"])
                    else:
                        resolved += self.patterns([target])
            elif "patterns" in rule and "begin" not in rule and "match" not in rule:
                resolved += self.patterns(rule["patterns"])
            else:
                source = rule.get("match") or rule["begin"]
                if source not in self.cache:
                    self.cache[source] = re.compile(source)
                resolved.append((rule, self.cache[source]))
        return resolved


def tokenize(grammar, text):
    """[(scopes, text)] for the whole text."""
    tokens = []
    stack = []  # [(rule, end regex, scopes)]
    base = [grammar.root]
    for line in text.split("\n"):
        line += "\n"
        position = 0
        while position < len(line):
            scopes = stack[-1][2] if stack else base
            rules = grammar.patterns(stack[-1][0].get("patterns", [])) if stack else grammar.patterns(grammar.data["patterns"])
            best = None
            if stack:
                end = stack[-1][1].search(line, position)
                if end:
                    best = (end.start(), -1, None, end)
            for order, (rule, regex) in enumerate(rules):
                found = regex.search(line, position)
                if found and (best is None or found.start() < best[0]):
                    best = (found.start(), order, rule, found)
            if best is None:
                tokens.append((scopes, line[position:]))
                break
            start, order, rule, found = best
            if start > position:
                tokens.append((scopes, line[position:start]))
            if rule is None:  # the end of the current begin/end rule
                closing = stack.pop()
                rule_scopes = closing[2]
                tokens += captured(closing[0].get("endCaptures", {}), found, rule_scopes)
                if found.end() == found.start() and found.start() == position:
                    position += 1
                position = max(found.end(), position)
                continue
            outer = scopes + ([rule["name"]] if "name" in rule else [])
            if "match" in rule:
                tokens += captured(rule.get("captures", {}), found, outer)
            else:
                tokens += captured(rule.get("beginCaptures", {}), found, outer)
                inner = outer + ([rule["contentName"]] if "contentName" in rule else [])
                stack.append((rule, re.compile(rule["end"]), inner))
            if found.end() == position:
                tokens.append((scopes, line[position]))
                position += 1
            else:
                position = found.end()
    return tokens


def captured(captures, found, scopes):
    """The match's text as tokens: captured groups with their names."""
    if not captures:
        return [(scopes, found.group(0))] if found.group(0) else []
    if "0" in captures and len(captures) == 1:
        return [(scopes + [captures["0"]["name"]], found.group(0))]
    tokens = []
    position = found.start()
    for index in sorted(int(k) for k in captures if k != "0"):
        if found.start(index) < 0:
            continue
        if found.start(index) > position:
            tokens.append((scopes, found.string[position:found.start(index)]))
        tokens.append((scopes + [captures[str(index)]["name"]], found.group(index)))
        position = found.end(index)
    if position < found.end():
        tokens.append((scopes, found.string[position:found.end()]))
    return tokens


def main():
    grammar = Grammar(sys.argv[1])
    mode = sys.argv[2]
    failed = False
    for path in sys.argv[3:]:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        tokens = tokenize(grammar, text)
        joined = "".join(t for _, t in tokens)
        if joined != text + "\n":
            print(f"{path}: the tokens do not give back the text", file=sys.stderr)
            failed = True
        for scopes, piece in tokens:
            if any("invalid" in scope for scope in scopes):
                print(f"{path}: invalid scope on {piece!r}", file=sys.stderr)
                failed = True
        if mode == "show":
            for scopes, piece in tokens:
                if piece.strip():
                    print(" ".join(scopes[1:]) + "\t" + piece)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
