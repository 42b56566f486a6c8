"""A horizontal bar chart drawn with block characters: one labelled row per value.

Used by the statistics screen for the chunk-size histogram (with the threshold drawn as a rule
between the bins under it and over it) and for the counts by depth, tag, layer, reason and
kind. Plain Rich text in one widget: no plotting library, so it scales to the widget's width,
renders the same in every terminal (snapshot tests) and reads well at a few rows.

Labels are spec data (tag names, kinds) and are drawn as ``Text``, never parsed as markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

EIGHTHS = " ▏▎▍▌▋▊▉█"
"""Partial blocks in eighths of a cell, so a bar's length is exact to 1/8 column."""


@dataclass(frozen=True)
class BarRow:
    """One row: ``label``, then a bar proportional to ``value``, then the value.

    ``alert`` draws the bar in the alert colour (bins over the threshold); ``rule`` makes the row
    a full-width divider captioned ``label`` (``value`` ignored), e.g. the threshold line.
    """

    label: str
    value: int = 0
    alert: bool = False
    rule: bool = False


def bar(value: int, largest: int, width: int) -> str:
    """A bar of ``value / largest`` of ``width`` cells, in eighths; at least a sliver for a
    value above 0 (a bin with one chunk must not look empty)."""
    if value <= 0 or largest <= 0 or width <= 0:
        return ""
    eighths = max(1, round(value / largest * width * 8))
    full, part = divmod(eighths, 8)
    return "█" * full + (EIGHTHS[part] if part else "")


class BarChart(Widget):
    """Rows of :class:`BarRow`: the label right-aligned, the bar, its value just after it; bars
    scaled to the widget's width and the largest value.

    Set :attr:`rows` to redraw. Colours come from the component classes
    ``bar-chart--label``, ``bar-chart--bar``, ``bar-chart--alert``, ``bar-chart--value`` and
    ``bar-chart--rule``.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "bar-chart--label",
        "bar-chart--bar",
        "bar-chart--alert",
        "bar-chart--value",
        "bar-chart--rule",
    }

    DEFAULT_CSS = """
    BarChart {
        height: auto;
        width: 1fr;
    }
    BarChart > .bar-chart--label { color: $text-muted; }
    BarChart > .bar-chart--bar { color: $primary; }
    BarChart > .bar-chart--alert { color: $error; }
    BarChart > .bar-chart--value { color: $text; }
    BarChart > .bar-chart--rule { color: $warning; text-style: bold; }
    """

    rows: reactive[tuple[BarRow, ...]] = reactive((), layout=True)
    """The rows, top to bottom (a tuple: reactive assignment must see a new value)."""

    def __init__(
        self,
        rows: list[BarRow] | tuple[BarRow, ...] = (),
        *,
        empty: str = "none",
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.empty = empty
        """Shown instead of bars when there are no rows."""
        self.set_reactive(BarChart.rows, tuple(rows))

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        """One line per row; with no rows, the ``empty`` text wrapped to ``width`` cells (it
        wraps, so a narrow screen still shows all of it)."""
        if self.rows:
            return len(self.rows)
        return max(1, len(Text(self.empty).wrap(self.app.console, max(1, width))))

    def render(self) -> Text:
        """The rows as one ``Text``: label column, bar, value."""
        if not self.rows:
            return Text(self.empty, style=self.get_component_rich_style("bar-chart--label"))
        styles = {
            name: self.get_component_rich_style(f"bar-chart--{name}")
            for name in ("label", "bar", "alert", "value", "rule")
        }
        bars = [row for row in self.rows if not row.rule]
        label_width = max((len(row.label) for row in bars), default=0)
        value_width = max((len(f"{row.value:,}") for row in bars), default=1)  # after the bar
        largest = max((row.value for row in bars), default=0)
        width = self.content_size.width or 40
        bar_width = max(1, width - label_width - value_width - 3)
        text = Text(no_wrap=True, overflow="ellipsis")
        for index, row in enumerate(self.rows):
            if index:
                text.append("\n")
            if row.rule:
                caption = f" {row.label} "
                side = max(0, (width - len(caption)) // 2)
                text.append(
                    "╌" * side + caption + "╌" * max(0, width - side - len(caption)),
                    style=styles["rule"],
                )
                continue
            text.append(row.label.rjust(label_width), style=styles["label"])
            text.append(" ")
            drawn = bar(row.value, largest, bar_width)
            text.append(drawn, style=styles["alert" if row.alert else "bar"])
            text.append(" " + f"{row.value:,}", style=styles["value"])
        return text
