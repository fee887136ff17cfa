"""Hadoop ``<configuration>`` files, read safely, merged and substituted as Hadoop does.

A user's XML is untrusted. It is parsed with ``defusedxml`` with every DTD refused, so entity
expansion ("billion laughs"), external entities and other DTD tricks stop at the
``<!DOCTYPE`` line with one clear error; files above :data:`MAX_FILE_BYTES` are refused before
parsing. The layout is Hadoop's: ``<configuration>`` holding ``<property>`` elements with
``<name>``, ``<value>``, ``<final>``, ``<description>`` (and Hadoop 3's ``<source>``, ``<tag>``,
or the same as attributes of ``<property>``). Anything else inside them is refused instead of
ignored, so a misspelt ``<vaule>`` cannot silently drop a setting; ``<xi:include>`` is refused
as not supported.

Merging follows Hadoop's ``Configuration``: resources are applied in order, a later definition
replaces an earlier one unless the earlier one was marked final (the attempt is kept as a
warning). A property with no value is ignored, as Hadoop ignores it. ``${name}`` in a value is
substituted when the value is read (:meth:`HadoopConfiguration.get`), never eagerly, so an
unrelated property referring to something defined in a file we do not read (say
``${hadoop.tmp.dir}`` from core-site.xml) is harmless; a reference that cannot be resolved, a
cycle, or more than Hadoop's 20 substitutions in one value is an :class:`InputError` naming the
file, line, property and value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TypeVar
from xml.sax import SAXParseException
from xml.sax.handler import ContentHandler
from xml.sax.xmlreader import AttributesImpl, Locator

from yarnspec.impl.config import getters
from yarnspec.impl.config.getters import java_trim
from yarnspec.impl.config.warning import ConfigWarning
from yarnspec.impl.errors import InputError
from yarnspec.impl.input_files import read_bytes, shown_name

#: Files larger than this are refused unread (a real scheduler configuration is a few kB).
MAX_FILE_BYTES = 4 * 1024 * 1024

#: Hadoop ``Configuration.MAX_SUBST``: at most this many ``${...}`` substitutions per value.
MAX_SUBSTITUTIONS = 20

#: What a ``getFloat`` / ``getDouble`` key accepts, for messages.
FLOAT_SYNTAX = "expected a number (finite, as Java's Float.parseFloat reads it: 12.5, 1e3, 0.5f)"
_N = TypeVar("_N", int, float)

_PROPERTY_FIELDS = frozenset({"name", "value", "final", "description", "source", "tag"})
_PROPERTY_ATTRIBUTES = frozenset({"name", "value", "final", "description", "source", "tag"})
#: Hadoop's variable syntax: ``${`` then one or more characters other than ``}``, ``$`` and space.
_VARIABLE = re.compile(r"\$\{([^}$ ]+)\}")


@dataclass(frozen=True)
class XmlProperty:
    """One ``<property>`` as written: ``value`` is unsubstituted; ``line`` is where it starts."""

    name: str
    value: str
    source: str
    line: int
    final: bool = False

    @property
    def location(self) -> str:
        """``file:line`` of the definition."""
        return f"{self.source}:{self.line}"


@dataclass(frozen=True)
class ConfigurationFile:
    """One parsed file: its properties in file order (repeats kept) and parse warnings."""

    source: str
    properties: tuple[XmlProperty, ...]
    warnings: tuple[str, ...] = ()

    def names(self) -> set[str]:
        """Every property name the file defines."""
        return {p.name for p in self.properties}


def read_configuration_file(path: str | Path) -> ConfigurationFile:
    """Read and parse one file; any fault (missing, too large, malformed, unsafe) is an
    :class:`InputError` naming the file (and the line where there is one)."""
    return parse_configuration(read_bytes(path, MAX_FILE_BYTES), shown_name(path))


def parse_configuration(data: bytes | str, source: str) -> ConfigurationFile:
    """Parse the text of one Hadoop configuration file named ``source`` (for messages)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if len(raw) > MAX_FILE_BYTES:
        raise InputError(source, "", f"file is larger than {MAX_FILE_BYTES} bytes; refusing to parse it")
    # Imported here, not at the top: the parser loads xml.sax.saxutils, which loads urllib and
    # http (~70 ms), and a world's inline keys need none of it (inline_configuration).
    import defusedxml.sax  # type: ignore[import-untyped]
    from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden

    handler = _Handler(source)
    try:
        defusedxml.sax.parseString(raw, handler, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except SAXParseException as exc:
        where = f"{source}:{exc.getLineNumber()}"
        column_number = exc.getColumnNumber()
        column = f" (column {column_number + 1})" if isinstance(column_number, int) else ""
        raise InputError(where, "", f"malformed XML: {exc.getMessage()}{column}") from None
    except DTDForbidden as exc:
        raise handler.fail(
            f"a DTD (<!DOCTYPE {exc.name}>) is not allowed in a configuration file: "
            "entity definitions could expand without bound or read other files"
        ) from None
    except EntitiesForbidden as exc:
        raise handler.fail(f"entity declaration {exc.name!r} is not allowed in a configuration file") from None
    except ExternalReferenceForbidden as exc:
        raise handler.fail(f"external reference {exc.sysid!r} is not allowed in a configuration file") from None
    except LookupError as exc:  # expat asks Python for an encoding it does not know
        raise InputError(source, "", f"the XML declaration names an encoding Python does not know: {exc}") from None
    except UnicodeError as exc:
        raise InputError(source, "", f"the text does not decode in its declared encoding: {exc}") from None
    return ConfigurationFile(source, tuple(handler.properties), tuple(handler.warnings))


def inline_configuration(properties: Mapping[str, str], source: str) -> ConfigurationFile:
    """``parse_configuration(format_configuration(properties), source)``: the same properties,
    lines, warnings and errors, without the XML round trip when every name and value is plain
    text (printable, no markup characters) and the file would not be too large, as a world
    file's keys are."""
    plain = all(_plain(name) and _plain(value) for name, value in properties.items())
    # at most 4 UTF-8 bytes a character and 100 of markup a property: short enough to be parsed
    short = sum(4 * (len(name) + len(value)) + 100 for name, value in properties.items()) + 100 <= MAX_FILE_BYTES
    if not (plain and short):
        return parse_configuration(format_configuration(properties), source)
    records: list[XmlProperty] = []
    warnings: list[str] = []
    for index, (name, value) in enumerate(properties.items()):
        line = _FIRST_PROPERTY_LINE + _LINES_PER_PROPERTY * index
        _add_property(records, warnings, source, line, {"name": name, "value": value})
    return ConfigurationFile(source, tuple(records), tuple(warnings))


#: Where :func:`format_configuration` writes the first ``<property>`` and how many lines each
#: takes (without ``<final>``).
_FIRST_PROPERTY_LINE, _LINES_PER_PROPERTY = 3, 4


def _plain(text: str) -> bool:
    """Whether XML reads ``text`` back exactly as written (no escapes, no line ends, no
    characters XML refuses)."""
    return text.isprintable() and not any(c in text for c in "&<>")


def _add_property(
    properties: list[XmlProperty], warnings: list[str], source: str, line: int, fields: Mapping[str, str]
) -> None:
    """Add the ``<property>`` at ``line`` with ``fields`` (its ``name``, ``value``, ``final``)
    to ``properties``, or a warning when Hadoop would skip it; an :class:`InputError` for a
    malformed one."""
    where = f"{source}:{line}"
    name = fields.get("name", "").strip()
    if not name:
        raise InputError(where, "", "<property> without a <name>")
    if re.search(r"\s", name):
        raise InputError(where, "", f"property name {name!r} contains white space")
    final_text = fields.get("final")
    final = False
    if final_text is not None:
        if final_text.strip().lower() not in ("true", "false"):
            raise InputError(where, name, f"<final> must be true or false, found {final_text!r}")
        final = final_text.strip().lower() == "true"
    value = fields.get("value")
    if not value:
        # Hadoop skips a property whose value is missing or empty.
        warnings.append(
            ConfigWarning("no-value", name, f"{where}: {name}: no value, so the property is ignored (as Hadoop does)")
        )
        return
    properties.append(XmlProperty(name, value, source, line, final))


class _Handler(ContentHandler):
    """SAX events to :class:`XmlProperty` records, refusing anything outside Hadoop's layout."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source
        self.properties: list[XmlProperty] = []
        self.warnings: list[str] = []
        self._locator: Locator | None = None
        self._stack: list[str] = []
        self._fields: dict[str, str] = {}
        self._text: list[str] = []
        self._property_line = 0

    def setDocumentLocator(self, locator: Locator) -> None:
        self._locator = locator

    def _line(self) -> int:
        line = self._locator.getLineNumber() if self._locator is not None else None
        return line if isinstance(line, int) and line > 0 else 1

    def fail(self, fault: str) -> InputError:
        """An error at the current line."""
        return InputError(f"{self.source}:{self._line()}", "", fault)

    def startElement(self, name: str, attrs: AttributesImpl) -> None:
        if "description" in self._stack:  # free text, as Hadoop reads it: markup inside is ignored
            self._stack.append(name)
            return
        if name.rpartition(":")[2] in ("include", "fallback"):
            raise self.fail(
                f"<{name}> (XInclude) is not supported; give the included file as another FILE argument instead"
            )
        parent = self._stack[-1] if self._stack else None
        if parent is None:
            if name != "configuration":
                raise self.fail(f"the top element is <{name}>, expected <configuration>")
        elif parent == "configuration":
            if name != "property":
                raise self.fail(f"unexpected element <{name}> in <configuration>, expected <property>")
            self._start_property(attrs)
        elif parent == "property":
            if name not in _PROPERTY_FIELDS:
                expected = ", ".join(f"<{f}>" for f in sorted(_PROPERTY_FIELDS))
                raise self.fail(f"unexpected element <{name}> in <property>, expected one of {expected}")
            if name in self._fields:
                raise self.fail(f"<property> gives <{name}> twice")
            self._text = []
        else:
            raise self.fail(f"unexpected element <{name}> inside <{parent}>")
        self._stack.append(name)

    def _start_property(self, attrs: AttributesImpl) -> None:
        self._property_line = self._line()
        self._fields = {}
        for attribute in attrs.getNames():
            if attribute not in _PROPERTY_ATTRIBUTES:
                raise self.fail(f"unexpected attribute {attribute!r} on <property>")
            self._fields[attribute] = attrs.getValue(attribute)

    def characters(self, content: str) -> None:
        if len(self._stack) >= 2 and self._stack[-2] == "property":
            self._text.append(content)

    def endElement(self, name: str) -> None:
        self._stack.pop()
        if "description" in self._stack:
            return
        if self._stack and self._stack[-1] == "property":
            self._fields[name] = "".join(self._text)
        elif name == "property":
            self._finish_property()

    def _finish_property(self) -> None:
        _add_property(self.properties, self.warnings, self.source, self._property_line, self._fields)


@dataclass(frozen=True)
class HadoopConfiguration:
    """Several files merged in order; reading a value substitutes ``${...}`` references.

    ``system_properties`` plays the part of Java system properties (``${user.name}``) and
    ``environment`` of ``${env.NAME}``; both are explicit inputs, never read from the process,
    so a configuration reads the same everywhere.
    """

    properties: Mapping[str, XmlProperty]
    sources: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    system_properties: Mapping[str, str] = field(default_factory=dict)
    environment: Mapping[str, str] = field(default_factory=dict)

    @staticmethod
    def merge(
        files: Iterable[ConfigurationFile],
        system_properties: Mapping[str, str] | None = None,
        environment: Mapping[str, str] | None = None,
    ) -> HadoopConfiguration:
        """Apply ``files`` in order: a later definition wins unless an earlier one is final."""
        merged: dict[str, XmlProperty] = {}
        final: set[str] = set()
        warnings: list[str] = []
        sources: list[str] = []
        for conf_file in files:
            sources.append(conf_file.source)
            warnings.extend(conf_file.warnings)
            for prop in conf_file.properties:
                if prop.name in final:
                    kept = merged[prop.name]
                    if kept.value != prop.value:
                        warnings.append(
                            ConfigWarning(
                                "final-override",
                                prop.name,
                                f"{prop.location}: {prop.name}: ignored {prop.value!r}, the property is final "
                                f"at {kept.location} with {kept.value!r}",
                            )
                        )
                    continue
                merged[prop.name] = prop
                if prop.final:
                    final.add(prop.name)
        return HadoopConfiguration(
            properties=MappingProxyType(merged),
            sources=tuple(sources),
            warnings=tuple(warnings),
            system_properties=MappingProxyType(dict(system_properties or {})),
            environment=MappingProxyType(dict(environment or {})),
        )

    @staticmethod
    def of(values: Mapping[str, str], source: str = "<properties>") -> HadoopConfiguration:
        """A configuration from a plain mapping (tests, case files); lines are numbered 1, 2, ..."""
        props = tuple(XmlProperty(name, value, source, line) for line, (name, value) in enumerate(values.items(), 1))
        return HadoopConfiguration.merge([ConfigurationFile(source, props)])

    def __contains__(self, name: object) -> bool:
        return name in self.properties

    def names(self) -> Iterator[str]:
        """Every property name, in merge order."""
        return iter(self.properties)

    def raw(self, name: str) -> str | None:
        """The value as written (no substitution), or ``None`` when unset."""
        prop = self.properties.get(name)
        return prop.value if prop is not None else None

    def get(self, name: str) -> str | None:
        """The value with ``${...}`` substituted (Hadoop ``Configuration.get``), ``None`` when unset."""
        prop = self.properties.get(name)
        if prop is None:
            return None
        return _Substitution(self, name).expand(prop.value, (name,))

    def get_trimmed(self, name: str) -> str | None:
        """:meth:`get` trimmed as Java's ``String.trim`` trims (``Configuration.getTrimmed``)."""
        value = self.get(name)
        return java_trim(value) if value is not None else None

    def get_strings(self, name: str) -> list[str] | None:
        """``Configuration.getStrings``: the pieces between commas, untrimmed, empty ones
        dropped; ``None`` when unset or when there is no piece."""
        value = self.get(name)
        pieces = getters.get_strings(value) if value is not None else []
        return pieces or None

    def get_trimmed_strings(self, name: str) -> list[str]:
        """``Configuration.getTrimmedStrings`` (empty when unset)."""
        value = self.get(name)
        return getters.get_trimmed_strings(value) if value is not None else []

    def get_bool(self, name: str, default: bool) -> bool:
        """``Configuration.getBoolean``: ``true`` or ``false`` in any case; anything else is an
        error (Hadoop would log a warning and fall back to the default)."""
        value = self.get(name)
        if value is None or not java_trim(value):
            return default
        parsed = getters.get_boolean(value)
        if parsed is None:
            raise self.invalid(name, "expected true or false")
        return parsed

    def get_float(self, name: str, default: float) -> float:
        """``Configuration.getFloat``: a finite number in Java's float syntax (``default`` when unset)."""
        return self._number(name, default, getters.get_float, FLOAT_SYNTAX)

    def get_double(self, name: str, default: float) -> float:
        """``Configuration.getDouble``: a finite number in Java's double syntax."""
        return self._number(name, default, getters.get_double, FLOAT_SYNTAX)

    def get_int(self, name: str, default: int) -> int:
        """``Configuration.getInt``: a Java int, decimal or ``0x`` hexadecimal."""
        return self._number(
            name, default, getters.get_int, "expected a whole number (a Java int, decimal or 0x hexadecimal)"
        )

    def get_long(self, name: str, default: int) -> int:
        """``Configuration.getLong``: a Java long, decimal or ``0x`` hexadecimal."""
        return self._number(
            name, default, getters.get_long, "expected a whole number (a Java long, decimal or 0x hexadecimal)"
        )

    def _number(self, name: str, default: _N, parse: Callable[[str], _N | None], expectation: str) -> _N:
        value = self.get(name)
        if value is None:
            return default
        number = parse(value)
        if number is None or not math.isfinite(number):
            raise self.invalid(name, expectation)
        return number

    def location(self, name: str) -> str:
        """``file:line`` of a property, or the file list when it is not set anywhere."""
        prop = self.properties.get(name)
        if prop is not None:
            return prop.location
        return ", ".join(self.sources) or "<configuration>"

    def shown(self, name: str) -> str:
        """The value for a message: ``'50'``, or ``'50' (from '${x}')`` when substituted."""
        raw = self.raw(name)
        if raw is None:
            return "nothing (not set)"
        value = self.get(name)
        return repr(value) if value == raw else f"{value!r} (from {raw!r})"

    def error(self, name: str, fault: str) -> InputError:
        """An :class:`InputError` at property ``name``: its file and line, its name, ``fault``."""
        return InputError(self.location(name), name, fault)

    def invalid(self, name: str, expectation: str) -> InputError:
        """An error for a bad value: ``<expectation>, found <value>``."""
        return self.error(name, f"{expectation}, found {self.shown(name)}")


def parse_decimal(text: str) -> float | None:
    """A finite number as ``Float.parseFloat`` reads it (:func:`getters.get_float`), or ``None``."""
    return getters.finite(getters.get_float(text))


class _Substitution:
    """Expansion of the value of one property; counts substitutions and tracks the chain of
    names being expanded to name a cycle."""

    def __init__(self, conf: HadoopConfiguration, name: str) -> None:
        self.conf = conf
        self.name = name
        self.count = 0

    def expand(self, text: str, chain: tuple[str, ...]) -> str:
        parts: list[str] = []
        position = 0
        for match in _VARIABLE.finditer(text):
            parts.append(text[position : match.start()])
            parts.append(self._resolve(match.group(1), chain))
            position = match.end()
        parts.append(text[position:])
        return "".join(parts)

    def _fail(self, fault: str) -> InputError:
        raw = self.conf.raw(self.name)
        return self.conf.error(self.name, f"{fault} (value {raw!r})")

    def _resolve(self, variable: str, chain: tuple[str, ...]) -> str:
        self.count += 1
        if self.count > MAX_SUBSTITUTIONS:
            raise self._fail(f"more than {MAX_SUBSTITUTIONS} ${{...}} substitutions (Hadoop's limit)")
        if variable in chain:
            cycle = " -> ".join((*chain[chain.index(variable) :], variable))
            raise self._fail(f"${{{variable}}} refers back to itself: {cycle}")
        if variable.startswith("env.") and len(variable) > 4:
            value = self._environment(variable[4:])
        elif variable in self.conf.system_properties:
            value = self.conf.system_properties[variable]
        elif variable in self.conf.properties:
            value = self.conf.properties[variable].value
        else:
            raise self._fail(
                f"${{{variable}}} refers to a property that is not set in the files read "
                f"(define it there, or give it as a system property: -D {variable}=VALUE)"
            )
        return self.expand(value, (*chain, variable))

    def _environment(self, spec: str) -> str:
        """``NAME``, ``NAME:-default`` (default when unset or empty) or ``NAME-default`` (when
        unset), as Hadoop reads ``${env.*}``."""
        for index, char in enumerate(spec):
            if char == ":" and spec[index + 1 : index + 2] == "-":
                value = self.conf.environment.get(spec[:index])
                return value if value else spec[index + 2 :]
            if char == "-":
                value = self.conf.environment.get(spec[:index])
                return value if value is not None else spec[index + 1 :]
        value = self.conf.environment.get(spec)
        if value is None:
            raise self._fail(
                f"${{env.{spec}}} refers to an environment variable; yarnspec does not read the "
                f"environment (write a default: ${{env.{spec}:-VALUE}})"
            )
        return value


def format_configuration(properties: Iterable[tuple[str, str]] | Mapping[str, str], final: Iterable[str] = ()) -> str:
    """Hadoop configuration XML for ``properties`` (name, value pairs in order); names in
    ``final`` are marked final. The inverse of :func:`parse_configuration`."""
    from xml.sax.saxutils import escape  # here: it loads urllib and http (see parse_configuration)

    pairs = properties.items() if isinstance(properties, Mapping) else properties
    finals = set(final)
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<configuration>"]
    for name, value in pairs:
        lines.append("  <property>")
        lines.append(f"    <name>{escape(name)}</name>")
        lines.append(f"    <value>{escape(value)}</value>")
        if name in finals:
            lines.append("    <final>true</final>")
        lines.append("  </property>")
    lines.append("</configuration>")
    return "\n".join(lines) + "\n"
