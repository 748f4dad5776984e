#!/usr/bin/env python3
"""Writes a large synthetic vault, deterministic for a given count and seed.

Usage: generate.py TARGET [COUNT] [--guides] [--hugo HUGO_SITE]

The default (mixed) vault: notes with frontmatter, H2-H4 sections, lists, callouts, tables,
wikilinks between notes, and Cyrillic text; every tenth note is a checklist, and the last folder
is a deck (one card per note, plus a folder note of inline cards).

`--guides`: guide notes only, about 4 KB each (41 MB for 10,000): frontmatter, H1-H4, bullets,
bold, four wikilinks and a callout each. `--hugo` also writes the same notes as a minimal Hugo
site (wikilinks left as text), for a side-by-side timing."""
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


def guide(rng, index, count):
    def link():
        target = f"note-{rng.randrange(count):05d}"
        return f"[[{target}#Section 1]]" if rng.random() < 0.5 else f"[[{target}]]"
    parts = [
        "---",
        f"title: Guide {index}",
        f"category: {rng.choice(['briefing', 'knots', 'maneuvering', 'mooring', 'safety'])}",
        f"order: {index}",
        "---",
        f"# Guide {index}\n",
        sentence(rng, 30) + " " + link(),
    ]
    for section in range(3):
        parts.append(f"\n## Section {section}\n")
        parts.append(sentence(rng, 25) + " **" + sentence(rng, 3) + "** " + sentence(rng, 25))
        parts.append("\n" + "\n".join(f"- {sentence(rng, 9)}" for _ in range(5)))
        parts.append(f"\n### Detail {section}\n\n{sentence(rng, 28)} {link() if section < 2 else ''}")
        parts.append(f"\n#### Deeper {section}\n\n{sentence(rng, 18)}")
    parts.append(f"\n> [!warning] Careful\n> {sentence(rng, 20)} {link()}\n")
    return "\n".join(parts) + "\n"


HUGO_CONFIG = 'baseURL = "https://example.org/"\ntitle = "Bench"\ndisableKinds = ["taxonomy", "term", "RSS"]\n'
HUGO_SINGLE = "<!doctype html><html><head><title>{{ .Title }}</title></head><body>{{ .Content }}</body></html>\n"
HUGO_LIST = "<!doctype html><html><head><title>{{ .Title }}</title></head><body><ul>{{ range .Pages }}<li><a href=\"{{ .RelPermalink }}\">{{ .Title }}</a></li>{{ end }}</ul></body></html>\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def main():
    arguments = sys.argv[1:]
    guides = "--guides" in arguments
    hugo = None
    if "--hugo" in arguments:
        position = arguments.index("--hugo")
        hugo = arguments[position + 1]
        del arguments[position:position + 2]
    arguments = [a for a in arguments if a != "--guides"]
    if not arguments or arguments[0].startswith("-"):
        # No target, or an option this script does not take (`--help`): say how to call it
        # rather than write a vault into a folder named after the option.
        sys.exit(__doc__)
    target = arguments[0]
    count = int(arguments[1]) if len(arguments) > 1 else 10000
    rng = random.Random(42)
    for index in range(count):
        relative = os.path.join(f"folder-{index % 50:02d}", f"note-{index:05d}.md")
        text = guide(rng, index, count) if guides else note(rng, index, count)
        write(os.path.join(target, relative), text)
        if hugo:
            write(os.path.join(hugo, "content", relative), text)
    if hugo:
        write(os.path.join(hugo, "hugo.toml"), HUGO_CONFIG)
        write(os.path.join(hugo, "layouts", "_default", "single.html"), HUGO_SINGLE)
        write(os.path.join(hugo, "layouts", "_default", "list.html"), HUGO_LIST)
    deck = os.path.join(target, "folder-49")
    if not guides and os.path.isdir(deck):
        cards = "\n".join(f"{sentence(rng, 6)}::{sentence(rng, 10)} ^c{card}" for card in range(500))
        with open(os.path.join(deck, "_deck.md"), "w", encoding="utf-8") as handle:
            handle.write("---\ntype: deck\ntitle: Generated deck\n---\n" + cards + "\n")


if __name__ == "__main__":
    main()
