"""``durak-sim docs [NAME]``: the rules and formats, as installed with the package.

The repository's ``docs/`` folder is installed as ``durak_sim/docs`` (pyproject's
``package-dir``), so a user who installed a wheel reads the same pages the help texts cite; a
source checkout (and an editable install) reads ``docs/`` beside the package.
"""
from __future__ import annotations

from pathlib import Path

import click

from .errors import UserError


def folder() -> Path:
    """Where the pages are: inside the installed package, else beside it."""
    package = Path(__file__).resolve().parent
    inside = package / "docs"
    return inside if (inside / "rules.md").is_file() else package.parent / "docs"


def pages() -> dict[str, str]:
    """Every installed page by name (its file name without ``.md``) with its title.

    >>> pages()["rules"]
    'The rules durak-sim plays'
    """
    found = {}
    for item in sorted(folder().glob("*.md")):
        title = item.read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()
        found[item.stem] = title
    return found


def page_text(name: str) -> str:
    """The text of the page ``name`` (``rules``, ``rulesets.md``, any case); an unknown
    name is a :class:`UserError` that lists the pages."""
    key = name.strip().lower().removesuffix(".md")
    page = folder() / f"{key}.md"
    if "/" in key or not page.is_file():
        raise UserError(f"no page {name!r}: the pages are {', '.join(pages())}")
    return page.read_text(encoding="utf-8")


@click.command("docs")
@click.argument("name", required=False)
def docs_command(name):
    """Print the page NAME of durak-sim's documentation (the rules, the rulesets, the
    record, position and observation formats, the engine protocol); without NAME, list
    the pages. The help texts cite them by NAME (durak-sim docs NAME)."""
    if name is None:
        known = pages()
        width = max(map(len, known))
        for key, title in known.items():
            click.echo(f"{key:<{width}}  {title}")
        return
    click.echo(page_text(name), nl=False)
