#!/usr/bin/env python3
"""Checks the house rules the compiler cannot:

- visibility: a `package` declaration is used by another module (a target of its own, a test,
  the demo or a tool); one only its own module uses is `internal` or `private`;
- test seams: no production target imports FoleyAudioTesting, and no production source reads a
  fault-injection variable outside the debug-only test seam (codec_internal.h, FOLEY_TEST_SEAMS);
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
    text = re.sub(r'"""[\s\S]*?"""', '""', text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"/\*[\s\S]*?\*/", "", text)
    return re.sub(r"//[^\n]*", "", text)


DECLARATION = re.compile(
    r"^\s*(?:@[\w().: ]+\s+)*package\s+(?:(?:static|final|override|mutating|nonmutating|lazy|"
    r"convenience|required|indirect|private\(set\)|fileprivate\(set\)|nonisolated(?:\(unsafe\))?)\s+)*"
    r"(?:func|var|let|class|struct|enum|protocol|typealias|actor|case|init|subscript)\b\s*([A-Za-z_]\w*)?",
    re.M,
)


def check_visibility(findings):
    words_by_module = defaultdict(set)
    declarations = []
    for root in SOURCE_ROOTS:
        for path in swift_files(root):
            module = module_of(path)
            text = strip_comments_and_strings(open(path, encoding="utf-8").read())
            words_by_module[module].update(re.findall(r"[A-Za-z_]\w*", text))
            if not path.startswith("Sources/"):
                continue
            for match in DECLARATION.finditer(text):
                name = match.group(1)
                kind = match.group(0).split()[-2] if name else match.group(0).split()[-1]
                if name is None or kind in ("init", "subscript"):
                    continue  # an initializer or subscript: used through its type
                line = text.count("\n", 0, match.start()) + 1
                declarations.append((module, path, line, name))
    for module, path, line, name in declarations:
        used = any(name in words for other, words in words_by_module.items() if other != module)
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
