#!/usr/bin/env python3
"""Checks the house rules the compiler cannot:

- visibility: a `package` declaration is used by another module (a target of its own, a test,
  the demo or a tool); one only its own module uses is `internal` or `private`;
- test seams: no production target imports FoleyAudioTesting, and no production source reads a
  fault-injection variable outside the debug-only test seam (codec_internal.h, FOLEY_TEST_SEAMS);
  a member that exists for the tests or the benchmark (its documentation says so) lives in its
  module's `+Testing.swift` file, unless it is stored (a count the type itself keeps);
- one lock type: Swift sources lock with `Locked` (FoleyCore) only.

Prints each finding with its file and line and exits 1 if there is any.
    Scripts/check-house.py            every rule
    Scripts/check-house.py --list     also list, per module, the package names others use
"""
import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.chdir(ROOT)

# Where each module's Swift sources are; every other directory holds "other modules".
SOURCE_ROOTS = ["Sources", "Tests", "Demo", "Benchmarks"]
# Production code: what a game links or runs.
PRODUCTION = ["Sources", "Demo"]
TEST_MODULES = {"FoleyAudioTesting"}


def swift_files(root):
    for directory, _, names in os.walk(root):
        for name in names:
            if name.endswith(".swift"):
                yield os.path.join(directory, name)


def module_of(path):
    parts = path.split(os.sep)
    if parts[0] in ("Sources", "Tests", "Benchmarks"):
        return parts[0] + "/" + parts[1]
    return parts[0]


def strip_comments_and_strings(text):
    """The code alone, line for line: strings emptied, comments dropped, newlines kept."""

    def blank(match):
        return "\n" * match.group(0).count("\n")

    text = re.sub(r'"""[\s\S]*?"""', lambda m: '""' + blank(m), text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"/\*[\s\S]*?\*/", blank, text)
    return re.sub(r"//[^\n]*", "", text)


DECLARATION = re.compile(
    r"^[ \t]*(?:@[\w().: ]+[ \t]+)*package[ \t]+(?:(?:static|final|override|mutating|nonmutating|lazy|"
    r"convenience|required|indirect|private\(set\)|fileprivate\(set\)|nonisolated(?:\(unsafe\))?)\s+)*"
    r"(?:func|var|let|class|struct|enum|protocol|typealias|actor|case|init|subscript)\b\s*([A-Za-z_]\w*)?",
    re.M,
)


def check_visibility(findings):
    words_by_module = defaultdict(set)
    signatures = defaultdict(list)
    protocol_bodies = defaultdict(list)
    requirements = defaultdict(set)
    declarations = []
    for root in SOURCE_ROOTS:
        for path in swift_files(root):
            module = module_of(path)
            text = strip_comments_and_strings(open(path, encoding="utf-8").read())
            words_by_module[module].update(re.findall(r"[A-Za-z_]\w*", text))
            if not path.startswith("Sources/"):
                continue
            for match in re.finditer(r"\bpackage\s+protocol\s+\w+[^{]*\{", text):
                depth, index = 1, match.end()
                while depth and index < len(text):
                    depth += {"{": 1, "}": -1}.get(text[index], 0)
                    index += 1
                protocol_bodies[module].append(text[match.end() : index])
            for match in DECLARATION.finditer(text):
                name = match.group(1)
                # The declaration's head: up to its body or its value.
                kind = match.group(0).split()[-2] if name else match.group(0).split()[-1]
                brace = text.find("{", match.end())
                end = text.find("\n", match.end()) if kind in ("var", "let") else brace
                head = text[match.end() : min(end if end >= 0 else len(text), match.end() + 600)]
                signatures[module].append((name, set(re.findall(r"[A-Za-z_]\w*", head))))
                kind = match.group(0).split()[-2] if name else match.group(0).split()[-1]
                if name is None or kind in ("init", "subscript"):
                    continue  # an initializer or subscript: used through its type
                line = text.count("\n", 0, match.start()) + 1
                declarations.append((module, path, line, name))
    # What package protocols require: their witnesses must be package too.
    for module, texts in protocol_bodies.items():
        for body in texts:
            requirements[module].update(re.findall(r"\b(?:func|var|let|associatedtype)\s+([A-Za-z_]\w*)", body))
    for module, path, line, name in declarations:
        used = any(name in words for other, words in words_by_module.items() if other != module)
        # A type in the signature of another package declaration of its module is used through
        # it (the compiler requires it to be package too).
        used = used or any(name in words for owner, words in signatures[module] if owner != name)
        used = used or name in requirements[module]
        if not used:
            findings.append(f"{path}:{line}: 'package {name}' is used by no other module: make it internal")


def check_seams(findings):
    for root in PRODUCTION:
        for path in swift_files(root):
            text = strip_comments_and_strings(open(path, encoding="utf-8").read())
            if module_of(path) == "Sources/FoleyAudioTesting":
                continue
            for match in re.finditer(r"\bimport\s+FoleyAudioTesting\b", text):
                line = text.count("\n", 0, match.start()) + 1
                findings.append(f"{path}:{line}: production code imports the test module FoleyAudioTesting")
            for match in re.finditer(r"FAULTS?\b", open(path, encoding="utf-8").read()):
                findings.append(f"{path}: production Swift code names a fault-injection variable")
                break
    for directory, _, names in os.walk("Sources"):
        for name in names:
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(directory, name)
            text = open(path, encoding="utf-8", errors="replace").read()
            for match in re.finditer(r"getenv\(\s*\"(FOLEY_[A-Z_]*FAULT[A-Z_]*)\"", text):
                before = text[: match.start()]
                guarded = before.rfind("#ifdef FOLEY_TEST_SEAMS") > before.rfind("#endif")
                if not guarded:
                    line = before.count("\n") + 1
                    findings.append(f"{path}:{line}: {match.group(1)} is read outside #ifdef FOLEY_TEST_SEAMS")


FOR_TESTS = re.compile(r"///[^\n]*\b(?:[Ff]or (?:the )?(?:tests|latency benchmark|benchmark)|the tests' count)\b")


def check_test_members(findings):
    """Members documented as being for the tests or the benchmark live in `+Testing.swift` files."""
    for root in PRODUCTION:
        for path in swift_files(root):
            if path.endswith("+Testing.swift") or module_of(path) == "Sources/FoleyAudioTesting":
                continue
            lines = open(path, encoding="utf-8").read().split("\n")
            for index, line in enumerate(lines):
                if not FOR_TESTS.search(line):
                    continue
                following = index + 1
                while following < len(lines) and lines[following].lstrip().startswith(("///", "@")):
                    following += 1
                declaration = lines[following] if following < len(lines) else ""
                if not re.search(r"\bpackage\b", declaration):
                    continue
                stored = re.search(r"\b(?:let|var)\b", declaration) and "{" not in declaration
                if not stored:
                    findings.append(
                        f"{path}:{following + 1}: a member for the tests or the benchmark: move it to the module's +Testing.swift file"
                    )


def check_locks(findings):
    for path in swift_files("Sources"):
        if path.endswith(os.path.join("FoleyCore", "Locked.swift")):
            continue
        text = strip_comments_and_strings(open(path, encoding="utf-8").read())
        for match in re.finditer(r"\b(Mutex|NSLock|NSRecursiveLock|os_unfair_lock|pthread_mutex_t)\b", text):
            line = text.count("\n", 0, match.start()) + 1
            findings.append(f"{path}:{line}: {match.group(1)}: Foley locks with Locked (FoleyCore) only")


def main():
    findings = []
    check_visibility(findings)
    check_seams(findings)
    check_test_members(findings)
    check_locks(findings)
    for finding in findings:
        print(finding)
    if findings:
        print(f"check-house: {len(findings)} finding(s)", file=sys.stderr)
        return 1
    print("check-house: visibility, test seams and locks as the house rules say")
    return 0


if __name__ == "__main__":
    sys.exit(main())
