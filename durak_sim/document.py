"""A report's text as blocks (headings, paragraphs, code, tables, images), rendered to
Markdown and to a self-contained HTML page from the same content: the documents of
:mod:`durak_sim.report` and :mod:`durak_sim.place_report`.

>>> d = Doc()
>>> d.h(1, "Title"); d.table(["a", "b"], [[1, 2]])
>>> print(d.markdown())
# Title
<BLANKLINE>
| a | b |
|:---|---:|
| 1 | 2 |
<BLANKLINE>
"""
from __future__ import annotations

import base64
import html
import re

#: the folder of a report's figures (PNG and SVG), relative to the report
PLOTS_DIR = "plots"


class Doc:
    """A report as blocks, rendered to Markdown and to HTML from the same content."""

    def __init__(self):
        self.blocks = []

    def h(self, level: int, text: str):
        self.blocks.append(("h", level, text))

    def p(self, text: str):
        self.blocks.append(("p", text))

    def code(self, text: str):
        self.blocks.append(("code", text))

    def table(self, headers, rows, left=1, wrap=False):
        """A table; ``left``: columns aligned left (labels), the rest right (numbers);
        ``wrap``: cells may wrap (prose), else a cell stays on one line in HTML (an
        interval is never split) and a wide table scrolls sideways. Every header must
        name its column: Markdown has no table without a header row."""
        headers = [str(h) for h in headers]
        if not all(headers):
            raise ValueError(f"a table column without a header: {headers}")
        self.blocks.append(("table", headers, [[str(c) for c in r] for r in rows], left,
                            wrap))

    def img(self, name: str, caption: str):
        self.blocks.append(("img", name, caption))

    def markdown(self) -> str:
        out = []
        for b in self.blocks:
            if b[0] == "h":
                out.append("#" * b[1] + " " + b[2])
            elif b[0] == "p":
                out.append(b[1])
            elif b[0] == "code":
                out.append("```sh\n" + b[1] + "\n```")
            elif b[0] == "table":
                _, headers, rows, left, _ = b
                esc = [[c.replace("|", "\\|") for c in r] for r in [headers] + rows]
                out.append("\n".join(
                    ["| " + " | ".join(esc[0]) + " |",
                     "|" + "|".join(":---" if i < left else "---:" for i in range(len(headers)))
                     + "|"] + ["| " + " | ".join(r) + " |" for r in esc[1:]]))
            elif b[0] == "img":
                out.append(f"![{b[2]}]({PLOTS_DIR}/{b[1]}.png)")
        return "\n\n".join(out) + "\n"

    def html(self, title: str, images: dict) -> str:
        def inline(text: str) -> str:
            text = re.sub(r"`([^`]*)`", r"<code>\1</code>", html.escape(text, quote=False))
            return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", text)

        body = []
        for b in self.blocks:
            if b[0] == "h":
                body.append(f"<h{b[1]}>{inline(b[2])}</h{b[1]}>")
            elif b[0] == "p":
                body.append(f"<p>{inline(b[1])}</p>")
            elif b[0] == "code":
                body.append(f"<pre><code>{html.escape(b[1], quote=False)}</code></pre>")
            elif b[0] == "table":
                _, headers, rows, left, wrap = b

                def cells(r, tag):
                    return "".join(f'<{tag} class="{"l" if i < left else "r"}">{inline(c)}</{tag}>'
                                   for i, c in enumerate(r))
                klass = ' class="wrap"' if wrap else ""
                body.append(f'<div class="t"><table{klass}>\n'
                            "<thead><tr>" + cells(headers, "th") + "</tr></thead>\n<tbody>\n"
                            + "\n".join(f"<tr>{cells(r, 'td')}</tr>" for r in rows)
                            + "\n</tbody>\n</table></div>")
            elif b[0] == "img" and b[1] in images:
                data = base64.b64encode(images[b[1]]).decode("ascii")
                body.append(f'<figure><img alt="{html.escape(b[2])}" '
                            f'src="data:image/png;base64,{data}">'
                            f"<figcaption>{inline(b[2])}</figcaption></figure>")
        style = ("body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;"
                 "padding:0 1rem;color:#222}.t{overflow-x:auto;margin:1rem 0}"
                 "table{border-collapse:collapse;font-size:.9rem}"
                 "th,td{border:1px solid #ccc;padding:.25rem .5rem}td{white-space:nowrap}"
                 "table.wrap td{white-space:normal}"
                 "th{background:#f3f3f3}.r{text-align:right;font-variant-numeric:tabular-nums}"
                 ".l{text-align:left}code,pre{background:#f6f6f6}pre{padding:.6rem;"
                 "overflow-x:auto}img{max-width:100%}figure{margin:1rem 0}"
                 "figcaption{font-size:.85rem;color:#555}")
        return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                f"<title>{html.escape(title)}</title>\n<style>{style}</style>\n</head>\n<body>\n"
                + "\n".join(body) + "\n</body>\n</html>\n")


__all__ = ["Doc", "PLOTS_DIR"]
