"""Reading Hadoop configuration files: layout, merge with final, substitution, hardening."""

from __future__ import annotations

import time
from pathlib import Path

import defusedxml.sax  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yarnspec.impl.config import hadoop_xml
from yarnspec.impl.config.hadoop_xml import (
    ConfigurationFile,
    HadoopConfiguration,
    XmlProperty,
    format_configuration,
    inline_configuration,
    parse_configuration,
    read_configuration_file,
)
from yarnspec.impl.errors import InputError

SIMPLE = """<?xml version="1.0"?>
<?xml-stylesheet type="text/xsl" href="configuration.xsl"?>
<configuration>
  <!-- a comment -->
  <property>
    <name>  a.name  </name>
    <value> spaced value </value>
    <description>ignored, even with <b>markup</b> in it</description>
  </property>
  <property name="short.form" value="7" final="true"/>
  <property>
    <name>b</name>
    <value>2</value>
    <final>true</final>
    <source>programmatically</source>
    <tag>YARN</tag>
  </property>
</configuration>
"""


def test_properties_keep_order_line_value_and_final() -> None:
    parsed = parse_configuration(SIMPLE, "site.xml")
    assert [(p.name, p.value, p.line, p.final) for p in parsed.properties] == [
        ("a.name", " spaced value ", 5, False),
        ("short.form", "7", 10, True),
        ("b", "2", 11, True),
    ]
    assert parsed.properties[0].location == "site.xml:5"


def test_a_property_without_value_is_ignored_with_a_warning() -> None:
    parsed = parse_configuration(
        "<configuration>\n<property><name>x</name><value></value></property>\n"
        "<property><name>y</name></property>\n</configuration>",
        "f.xml",
    )
    assert parsed.properties == ()
    assert len(parsed.warnings) == 2
    assert parsed.warnings[0].startswith("f.xml:2: x: no value")


def test_read_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "yarn-site.xml"
    path.write_text(format_configuration({"k": "v < & >"}), encoding="utf-8")
    assert read_configuration_file(path).properties[0].value == "v < & >"


# -- faults: each one line naming the file (and line) --------------------------------------

MALFORMED = [
    ("<configuration>\n<property>\n<name>a</value>\n</property></configuration>", ":3", "mismatched tag"),
    ("", ":1", "no element found"),
    ("<conf>\n</conf>", ":1", "expected <configuration>"),
    ("<configuration>\n<prop/>\n</configuration>", ":2", "unexpected element <prop> in <configuration>"),
    ("<configuration>\n<property>\n<name>a</name>\n<vaule>1</vaule>\n</property>\n</configuration>", ":4", "<vaule>"),
    ("<configuration><property><name>a</name><value><b/></value></property></configuration>", ":1", "inside <value>"),
    ("<configuration>\n<property><value>1</value></property>\n</configuration>", ":2", "without a <name>"),
    ("<configuration><property><name>a</name><name>b</name></property></configuration>", ":1", "<name> twice"),
    (
        "<configuration>\n<property><name>a\nb</name><value>1</value></property></configuration>",
        ":2",
        "contains white space",
    ),
    ("<configuration><property nam='a'/></configuration>", ":1", "attribute 'nam'"),
    (
        "<configuration>\n<property><name>a</name><value>1</value><final>yes</final></property>\n</configuration>",
        ":2",
        "'yes'",
    ),
    (
        '<configuration xmlns:xi="http://www.w3.org/2001/XInclude">\n  <xi:include href="other.xml"/>\n</configuration>',
        ":2",
        "XInclude",
    ),
    (b"<configuration>\n<property><name>a</name><value>\xff</value></property></configuration>", ":2", "malformed XML"),
]


@pytest.mark.parametrize(("text", "line", "fault"), MALFORMED)
def test_malformed_file_names_file_line_and_fault(text: str | bytes, line: str, fault: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_configuration(text, "conf/capacity-scheduler.xml")
    message = str(caught.value)
    assert message.startswith("conf/capacity-scheduler.xml" + line + ":")
    assert fault in message
    assert "\n" not in message


def test_missing_file_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nowhere\.xml: no such file"):
        read_configuration_file(tmp_path / "nowhere.xml")


def test_oversized_file_is_refused_before_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hadoop_xml, "MAX_FILE_BYTES", 100)
    path = tmp_path / "big.xml"
    path.write_text(format_configuration({f"k{i}": "v" for i in range(10)}), encoding="utf-8")
    with pytest.raises(InputError, match="more than the limit of 100"):
        read_configuration_file(path)


# -- hardening ---------------------------------------------------------------------------------

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<configuration><property><name>a</name><value>&lol9;</value></property></configuration>
"""

EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE configuration [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<configuration><property><name>a</name><value>&secret;</value></property></configuration>
"""

EXTERNAL_DTD = """<?xml version="1.0"?>
<!DOCTYPE configuration SYSTEM "http://attacker.example/evil.dtd">
<configuration/>
"""


@pytest.mark.parametrize("text", [BILLION_LAUGHS, EXTERNAL_ENTITY, EXTERNAL_DTD], ids=["laughs", "entity", "dtd"])
def test_dtd_tricks_are_refused_quickly(tmp_path: Path, text: str) -> None:
    path = tmp_path / "evil.xml"
    path.write_text(text, encoding="utf-8")
    started = time.perf_counter()
    with pytest.raises(InputError) as caught:
        read_configuration_file(path)
    assert time.perf_counter() - started < 1.0
    assert str(caught.value).startswith(f"{path}:2: a DTD (<!DOCTYPE")
    assert "root:" not in str(caught.value)  # nothing of /etc/passwd leaked into the message


def test_entities_are_refused_even_if_dtds_were_allowed() -> None:
    """The second line of defence: entity declarations are forbidden on their own."""
    with pytest.raises(defusedxml.EntitiesForbidden):
        defusedxml.sax.parseString(BILLION_LAUGHS.encode(), hadoop_xml._Handler("x"), forbid_dtd=False)


# -- merging -------------------------------------------------------------------------------------


def _file(source: str, *props: tuple[str, str, bool]) -> ConfigurationFile:
    return ConfigurationFile(source, tuple(XmlProperty(n, v, source, i + 1, f) for i, (n, v, f) in enumerate(props)))


def test_later_file_wins_unless_final() -> None:
    first = _file("site.xml", ("a", "1", False), ("b", "1", True))
    second = _file("cs.xml", ("a", "2", False), ("b", "2", False), ("c", "3", False))
    merged = HadoopConfiguration.merge([first, second])
    assert (merged.get("a"), merged.get("b"), merged.get("c")) == ("2", "1", "3")
    assert merged.location("b") == "site.xml:2"
    assert merged.warnings == ("cs.xml:2: b: ignored '2', the property is final at site.xml:2 with '1'",)
    assert merged.sources == ("site.xml", "cs.xml")


def test_final_also_holds_within_one_file() -> None:
    merged = HadoopConfiguration.merge([_file("f.xml", ("a", "1", True), ("a", "2", False))])
    assert merged.get("a") == "1"


def test_repeating_a_final_value_is_not_a_warning() -> None:
    merged = HadoopConfiguration.merge([_file("f.xml", ("a", "1", True)), _file("g.xml", ("a", "1", False))])
    assert merged.warnings == ()


# -- substitution --------------------------------------------------------------------------------


def test_property_references_are_substituted_recursively() -> None:
    conf = HadoopConfiguration.of({"host": "rm", "port": "8032", "addr": "${host}:${port}", "url": "http://${addr}/"})
    assert conf.get("url") == "http://rm:8032/"
    assert conf.raw("url") == "http://${addr}/"
    assert conf.shown("addr") == "'rm:8032' (from '${host}:${port}')"


def test_system_properties_come_before_configuration() -> None:
    files = [_file("f.xml", ("user.name", "conf", False), ("dir", "/home/${user.name}", False))]
    conf = HadoopConfiguration.merge(files, system_properties={"user.name": "alice"})
    assert conf.get("dir") == "/home/alice"


def test_environment_references_with_defaults() -> None:
    files = [
        _file(
            "f.xml",
            ("a", "${env.HOME}", False),
            ("b", "${env.NOPE:-x}", False),
            ("c", "${env.EMPTY-y}", False),
            ("d", "${env.EMPTY:-z}", False),
        )
    ]
    conf = HadoopConfiguration.merge(files, environment={"HOME": "/h", "EMPTY": ""})
    assert [conf.get(k) for k in "abcd"] == ["/h", "x", "", "z"]
    with pytest.raises(InputError, match=r"f.xml:1: a: \$\{env.HOME\} refers to an environment variable"):
        HadoopConfiguration.merge(files).get("a")


def test_unknown_reference_names_file_property_and_value() -> None:
    conf = HadoopConfiguration.of({"x": "1", "y": "a-${missing}"}, source="cs.xml")
    with pytest.raises(InputError) as caught:
        conf.get("y")
    assert str(caught.value).startswith("cs.xml:2: y: ${missing} refers to a property that is not set")
    assert "(value 'a-${missing}')" in str(caught.value)


def test_unused_unresolvable_reference_is_harmless() -> None:
    conf = HadoopConfiguration.of({"dirs": "${hadoop.tmp.dir}/nm", "a": "1"})
    assert conf.get("a") == "1"


@pytest.mark.parametrize(
    ("values", "cycle"),
    [
        ({"a": "${a}"}, "a -> a"),
        ({"a": "x${b}", "b": "${c}", "c": "${a}"}, "a -> b -> c -> a"),
    ],
)
def test_cycles_are_named(values: dict[str, str], cycle: str) -> None:
    with pytest.raises(InputError, match=f"refers back to itself: {cycle}"):
        HadoopConfiguration.of(values).get("a")


def test_more_than_twenty_substitutions_is_hadoops_limit() -> None:
    ok = HadoopConfiguration.of({"v": "1", "a": "${v}" * 20})
    assert ok.get("a") == "1" * 20
    with pytest.raises(InputError, match="more than 20"):
        HadoopConfiguration.of({"v": "1", "a": "${v}" * 21}).get("a")


def test_typed_getters_refuse_bad_values() -> None:
    conf = HadoopConfiguration.of({"b": "yes", "f": "1.5x", "i": "2.5", "ok": " TRUE "}, source="s.xml")
    assert conf.get_bool("ok", False) is True
    assert conf.get_bool("absent", True) is True
    with pytest.raises(InputError, match=r"^s.xml:1: b: expected true or false, found 'yes'$"):
        conf.get_bool("b", False)
    with pytest.raises(InputError, match=r"^s.xml:2: f: expected a number \(finite, .*\), found '1.5x'$"):
        conf.get_float("f", 0.0)
    with pytest.raises(InputError, match=r"^s.xml:3: i: expected a whole number \(a Java int, .*\), found '2.5'$"):
        conf.get_int("i", 0)


# -- properties ------------------------------------------------------------------------------

_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\r") | st.sampled_from("\t\n"),
    min_size=1,
    max_size=20,
)
_NAME = st.from_regex(r"[a-z][a-z0-9._-]{0,15}", fullmatch=True)


@settings(max_examples=60)
@given(st.lists(st.tuples(_NAME, _TEXT), max_size=8))
def test_written_files_read_back_unchanged(pairs: list[tuple[str, str]]) -> None:
    parsed = parse_configuration(format_configuration(pairs), "gen.xml")
    assert [(p.name, p.value) for p in parsed.properties] == pairs


def _read_back(properties: dict[str, str], source: str) -> ConfigurationFile | tuple[str, str, str]:
    """What parsing the written file gives: the file, or the error's source, place and fault."""
    try:
        return inline_configuration(properties, source)
    except InputError as exc:
        return exc.source, exc.place, exc.fault


def _parsed(properties: dict[str, str], source: str) -> ConfigurationFile | tuple[str, str, str]:
    try:
        return parse_configuration(format_configuration(properties), source)
    except InputError as exc:
        return exc.source, exc.place, exc.fault


_INLINE_TEXT = st.text(
    alphabet=st.sampled_from("ab. \t&<>\u00e9") | st.characters(blacklist_categories=("Cs",)), max_size=6
)


@settings(max_examples=200)
@given(st.dictionaries(_INLINE_TEXT, _INLINE_TEXT, max_size=5))
def test_inline_keys_read_as_their_written_file_would(properties: dict[str, str]) -> None:
    """Without the XML round trip for plain text: the same properties, lines, warnings and errors."""
    assert _read_back(properties, "w.toml [k]") == _parsed(properties, "w.toml [k]")


@pytest.mark.parametrize(
    "properties",
    [
        {"a.b": "1", " c ": " spaced "},
        {"a": ""},
        {"a b": "1"},
        {"": "1"},
        {"a": "x & y", "b": "2"},
        {"a": "two\nlines"},
    ],
)
def test_inline_keys_examples(properties: dict[str, str]) -> None:
    assert _read_back(properties, "w.toml [k]") == _parsed(properties, "w.toml [k]")


def test_inline_keys_too_many_for_a_file_are_refused_as_the_file_would_be(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hadoop_xml, "MAX_FILE_BYTES", 300)
    properties = {f"k{i}": "v" for i in range(10)}
    read = _read_back(properties, "w.toml [k]")
    assert read == _parsed(properties, "w.toml [k]")
    assert isinstance(read, tuple) and read[2].startswith("file is larger than 300 bytes")


@settings(max_examples=60)
@given(
    st.lists(
        st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 9), st.booleans()), max_size=5),
        min_size=1,
        max_size=4,
    )
)
def test_merge_keeps_the_first_final_else_the_last(files: list[list[tuple[str, int, bool]]]) -> None:
    parsed = [
        parse_configuration(
            format_configuration([(n, str(v)) for n, v, _ in f], final=[n for n, _, fin in f if fin]), f"f{i}.xml"
        )
        for i, f in enumerate(files)
    ]
    merged = HadoopConfiguration.merge(parsed)
    for name in "abc":
        written = [p for conf_file in parsed for p in conf_file.properties if p.name == name]
        finals = [p.value for p in written if p.final]
        expected = finals[0] if finals else (written[-1].value if written else None)
        assert merged.get(name) == expected
