"""``yarnspec config --allow ID[=KEY-GLOB]`` and ``--allow-file FILE``: known warnings a user
accepts, so that ``config --strict`` can run in CI on a configuration whose warnings are known.

A rule is a warning id (one of :data:`WARNING_IDS`) and, optionally, a glob over the key the
warning is about (``fnmatch`` rules, case-sensitive: ``*`` any text, ``?`` one character,
``[...]`` a set). A warning is allowed when some rule names its id and, if the rule has a glob,
the glob matches the warning's whole key. An allow file holds one rule per line; ``#`` starts
a comment, blank lines are skipped. A bad rule is one :class:`InputError` naming the command
line or the file and its line (exit 2). Allowed warnings are counted in the output, never
silently dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from types import MappingProxyType

from yarnspec.impl.config.warning import WARNING_IDS as READER_WARNING_IDS
from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import read_text, shown_name

#: Every warning id ``config`` prints: the configuration reader's and the key lint's.
WARNING_IDS: Mapping[str, str] = MappingProxyType(
    {
        **READER_WARNING_IDS,
        "unknown-key": "a key under the scheduler's prefixes that Hadoop does not know (usually a typo)",
        "not-modelled": "a setting that switches on a feature the model does not cover",
    }
)
#: The largest allow file read (a list of rules, not data).
MAX_ALLOW_FILE_BYTES = 1 << 20


@dataclass(frozen=True)
class AllowRule:
    """One allowed warning id, for every key (``key_glob`` None) or the keys a glob matches."""

    warning_id: str
    key_glob: str | None = None

    def allows(self, warning_id: str, key: str) -> bool:
        """Whether this rule allows a warning of ``warning_id`` about ``key``."""
        return warning_id == self.warning_id and (self.key_glob is None or fnmatchcase(key, self.key_glob))

    def __str__(self) -> str:
        return self.warning_id if self.key_glob is None else f"{self.warning_id}={self.key_glob}"


def parse_rule(text: str, source: str, place: str) -> AllowRule:
    """``ID`` or ``ID=KEY-GLOB`` as a rule; an unknown id or an empty glob is an error."""
    warning_id, equals, glob = (part.strip() for part in text.strip().partition("="))
    if warning_id not in WARNING_IDS:
        known = ", ".join(sorted(WARNING_IDS))
        raise InputError(source, place, f"unknown warning id {warning_id!r} in {text.strip()!r} (known: {known})")
    if equals and not glob:
        raise InputError(source, place, f"expected ID or ID=KEY-GLOB, found {text.strip()!r} (the glob is empty)")
    return AllowRule(warning_id, glob if equals else None)


def read_allow_file(path: str | Path) -> list[AllowRule]:
    """The rules of an allow file, one a line, ``#`` comments and blank lines skipped."""
    source = shown_name(path)
    rules = []
    for number, line in enumerate(read_text(path, MAX_ALLOW_FILE_BYTES).splitlines(), start=1):
        text = line.split("#", 1)[0].strip()
        if text:
            rules.append(parse_rule(text, source, f"line {number}"))
    return rules


def allow_rules(options: Sequence[str], files: Sequence[str]) -> list[AllowRule]:
    """The rules of ``--allow`` options and ``--allow-file`` files."""
    rules = [parse_rule(text, "command line", "--allow") for text in options]
    for path in files:
        rules += read_allow_file(path)
    return rules


def is_allowed(rules: Iterable[AllowRule], warning_id: str, key: str) -> bool:
    """Whether any rule allows a warning of ``warning_id`` about ``key``."""
    return any(rule.allows(warning_id, key) for rule in rules)
