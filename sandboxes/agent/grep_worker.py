"""Runs one grep job (JSON on stdin, result JSON on stdout) as the sandbox user, in its own process group, so the
agent can kill a catastrophic regex by its call's timeout or cancel. Started by grep_runner.py."""
import json
import sys

from file_search import grep_matches


def main():
    job = json.loads(sys.stdin.buffer.read())
    # ensure_ascii: undecodable file names (lone surrogates) travel as \udcxx escapes and come back intact.
    sys.stdout.write(json.dumps(grep_matches(job)))


if __name__ == "__main__":
    main()
