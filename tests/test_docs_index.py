"""The indexes stay complete: docs/README.md links every page of docs/, benchmarks/README.md
names every benchmark, the README links both, and every relative link in them (and in
docs/sources.md, the key to the notes the code cites) resolves, its ``#anchor`` included."""

from __future__ import annotations

import re
from pathlib import Path

from .conftest import PROJECT_ROOT

DOCS = PROJECT_ROOT / "docs"
BENCHMARKS = PROJECT_ROOT / "benchmarks"
#: a Markdown link's target, without its ``#anchor``
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
#: a Markdown link's target and its anchor
ANCHORED = re.compile(r"\]\(([^)#\s]*)#([^)\s]+)\)")
#: the pages whose links are checked
INDEXES = (PROJECT_ROOT / "README.md", DOCS / "README.md", BENCHMARKS / "README.md", DOCS / "sources.md")


def _links(page: Path) -> list[str]:
    return [target for target in LINK.findall(page.read_text(encoding="utf-8")) if "://" not in target]


def test_the_docs_index_links_every_page() -> None:
    linked = {(DOCS / target).resolve() for target in _links(DOCS / "README.md")}
    missing = [
        page.name for page in sorted(DOCS.glob("*.md")) if page.name != "README.md" and page.resolve() not in linked
    ]
    assert not missing, f"pages docs/README.md does not link: {missing}"


def test_the_benchmarks_readme_names_every_benchmark() -> None:
    text = (BENCHMARKS / "README.md").read_text(encoding="utf-8")
    missing = [script.name for script in sorted(BENCHMARKS.glob("*.py")) if f"`{script.name}`" not in text]
    assert not missing, f"benchmarks benchmarks/README.md does not describe: {missing}"


def test_the_readme_links_both_indexes() -> None:
    links = _links(PROJECT_ROOT / "README.md")
    assert "docs/README.md" in links and "benchmarks/README.md" in links


def test_every_relative_link_of_the_indexes_resolves() -> None:
    broken = [
        f"{page.relative_to(PROJECT_ROOT)}: {target}"
        for page in INDEXES
        for target in _links(page)
        if not (page.parent / target).exists()
    ]
    assert not broken, f"links to nothing: {broken}"


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {_slug(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


def test_every_anchor_of_the_indexes_names_a_heading() -> None:
    broken = []
    for page in INDEXES:
        for target, anchor in ANCHORED.findall(page.read_text(encoding="utf-8")):
            linked = (page.parent / target) if target else page
            if linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{page.relative_to(PROJECT_ROOT)}: {target}#{anchor}")
    assert not broken, f"anchors that name no heading: {broken}"
