"""The indexes stay complete: docs/README.md links every page of docs/, benchmarks/README.md
names every benchmark, the README links both, and every relative link in them resolves."""

from __future__ import annotations

import re
from pathlib import Path

from .conftest import PROJECT_ROOT

DOCS = PROJECT_ROOT / "docs"
BENCHMARKS = PROJECT_ROOT / "benchmarks"
#: a Markdown link's target, without its ``#anchor``
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _links(page: Path) -> list[str]:
    return [target for target in LINK.findall(page.read_text(encoding="utf-8")) if "://" not in target]


def test_the_docs_index_links_every_page() -> None:
    linked = {(DOCS / target).resolve() for target in _links(DOCS / "README.md")}
    missing = [page.name for page in sorted(DOCS.glob("*.md")) if page.name != "README.md" and page.resolve() not in linked]
    assert not missing, f"pages docs/README.md does not link: {missing}"


def test_the_benchmarks_readme_names_every_benchmark() -> None:
    text = (BENCHMARKS / "README.md").read_text(encoding="utf-8")
    missing = [script.name for script in sorted(BENCHMARKS.glob("*.py")) if f"`{script.name}`" not in text]
    assert not missing, f"benchmarks benchmarks/README.md does not describe: {missing}"


def test_the_readme_links_both_indexes() -> None:
    links = _links(PROJECT_ROOT / "README.md")
    assert "docs/README.md" in links and "benchmarks/README.md" in links


def test_every_relative_link_of_the_indexes_resolves() -> None:
    pages = (PROJECT_ROOT / "README.md", DOCS / "README.md", BENCHMARKS / "README.md")
    broken = [f"{page.relative_to(PROJECT_ROOT)}: {target}" for page in pages for target in _links(page) if not (page.parent / target).exists()]
    assert not broken, f"links to nothing: {broken}"
