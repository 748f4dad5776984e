#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora from the repository's vaults: `seed.py OUT`.

OUT/markdown holds every note, OUT/frontmatter their frontmatter, OUT/config every locker.yml,
and OUT/vault small vaults in the format of FuzzTarget.vault: files separated by NUL bytes, each
led by a byte that names its place (an index into FuzzTarget.vaultPaths)."""

import hashlib
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
VAULTS = [ROOT / "content"] + sorted((ROOT / "Tests/LockerCoreTests/Fixtures").glob("*/vault"))
# FuzzTarget.vaultPaths, by what a file is.
CONFIG, GUIDE, GUIDE_EN, OTHER_GUIDE, GUIDE_DE, CHECKLIST, CHECKLIST_EN, DECK, DECK_EN, PAGE, IMAGE, TEMPLATE = range(12)


def save(folder: pathlib.Path, data: bytes) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def frontmatter(note: bytes) -> bytes | None:
    lines = note.split(b"\n")
    if not lines or lines[0].strip() != b"---":
        return None
    for end, line in enumerate(lines[1:], start=1):
        if line.strip() in (b"---", b"..."):
            return b"\n".join(lines[1:end])
    return None


def place(path: pathlib.Path) -> int:
    text = str(path).lower()
    english = path.name.endswith(".en.md")
    if path.suffix == ".png":
        return IMAGE
    if path.suffix == ".mustache":
        return TEMPLATE
    if "deck" in text or "signals" in text or "shapes" in text:
        return DECK_EN if english else DECK
    if "checklist" in text or "чек" in text:
        return CHECKLIST_EN if english else CHECKLIST
    if "/site/" in text:
        return PAGE
    return GUIDE_EN if english else GUIDE


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    for vault in VAULTS:
        config = vault / "locker.yml"
        if config.exists():
            save(out / "config", config.read_bytes())
        files = sorted(p for p in vault.rglob("*") if p.is_file() and ".obsidian" not in p.parts
                       and p.suffix in (".md", ".png", ".mustache"))
        notes = [p for p in files if p.suffix == ".md"]
        for note in notes:
            data = note.read_bytes()
            save(out / "markdown", data)
            if (found := frontmatter(data)) is not None:
                save(out / "frontmatter", found)
        # Vaults of a few files each: the settings, then four neighbouring files.
        for start in range(0, max(len(files), 1), 2):
            # The settings' place is 0, but a 0 byte separates files: 12 is the same place, mod 12.
            parts = [bytes([CONFIG + 12]) + config.read_bytes()] if config.exists() else []
            used = set()
            for path in files[start:start + 4]:
                slot = place(path)
                slot = OTHER_GUIDE if slot == GUIDE and slot in used else slot
                used.add(slot)
                parts.append(bytes([slot]) + path.read_bytes().replace(b"\0", b""))
            save(out / "vault", b"\0".join(parts))
    for target in ("markdown", "frontmatter", "config", "vault"):
        print(f"{target}: {len(list((out / target).iterdir()))} seeds")


if __name__ == "__main__":
    main()
