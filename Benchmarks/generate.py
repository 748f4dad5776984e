#!/usr/bin/env python3
"""Writes a large synthetic vault: notes with frontmatter, H2-H4 sections, lists, callouts,
tables, wikilinks between notes, and Cyrillic text; every tenth note is a checklist, and the
last folder is a deck (one card per note, plus a folder note of inline cards). Deterministic
for a given count and seed."""
import os
import random
import sys

WORDS = ("anchor chain bow stern cleat fender winch sheet halyard reef tack gybe mooring quay "
         "якорь цепь нос корма утка кранец лебёдка шкот фал риф галс швартов причал").split()


def sentence(rng, n=12):
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def note(rng, index, count):
    links = " ".join(f"[[note-{rng.randrange(count):05d}]]" for _ in range(3))
    parts = [
        "---",
        f"title: Note {index}",
        *(["type: checklist", "checklistType: checkIn"] if index % 10 == 0 else []),
        f"category: {rng.choice(['briefing', 'knots', 'maneuvering', 'mooring', 'safety'])}",
        f"order: {index}",
        "created: November 16",
        "---",
        sentence(rng, 30) + " " + links,
    ]
    for section in range(4):
        parts.append(f"\n## Section {section}\n")
        parts.append(sentence(rng, 40) + " ==" + sentence(rng, 4) + "== #tag" + str(section))
        parts.append("\n" + "\n".join(f"- [ ] {sentence(rng, 8)} ^i{section}x{item}" for item in range(5)))
        parts.append(f"\n### Detail {section}\n\n> [!warning] Careful\n> {sentence(rng, 20)}\n")
        parts.append("| a | b |\n|---|---|\n" + "\n".join(f"| {sentence(rng, 3)} | {item} |" for item in range(4)))
        parts.append(f"\n#### Deeper {section}\n\n{sentence(rng, 60)} [[note-{rng.randrange(count):05d}#Section 1]]")
    return "\n".join(parts) + "\n"


def main():
    target = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    rng = random.Random(42)
    for index in range(count):
        folder = os.path.join(target, f"folder-{index % 50:02d}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"note-{index:05d}.md"), "w", encoding="utf-8") as handle:
            handle.write(note(rng, index, count))
    deck = os.path.join(target, "folder-49")
    if os.path.isdir(deck):
        cards = "\n".join(f"{sentence(rng, 6)}::{sentence(rng, 10)} ^c{card}" for card in range(500))
        with open(os.path.join(deck, "_deck.md"), "w", encoding="utf-8") as handle:
            handle.write("---\ntype: deck\ntitle: Generated deck\n---\n" + cards + "\n")


if __name__ == "__main__":
    main()
