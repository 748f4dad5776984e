"""Imports Anki packages into a collection with Anki's own code (the `anki` package of PyPI,
pinned in Tests/browser/requirements.txt) and writes what the collection then holds, as JSON.

    python3 import_apkg.py COLLECTION OUTPUT.json PACKAGE.apkg...

COLLECTION is made when missing; each package is imported in turn, as Anki's "Import" does with
its default options (notes and note types updated when the package's are newer, no merging of
note types). OUTPUT gets the anki version, each import's log (how many notes were new, updated,
duplicates or conflicting), and every note with its cards, every deck, note type and media file.
"""

import hashlib
import json
import os
import sys

import anki.buildinfo
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest


def imported(collection, package):
    request = ImportAnkiPackageRequest(package_path=package, options=ImportAnkiPackageOptions())
    log = collection.import_anki_package(request).log
    return {
        "new": len(log.new),
        "updated": len(log.updated),
        "duplicate": len(log.duplicate),
        "conflicting": len(log.conflicting),
    }


def notes(collection):
    result = []
    for note_id in sorted(collection.find_notes("")):
        note = collection.get_note(note_id)
        notetype = note.note_type()
        cards = sorted(note.cards(), key=lambda card: card.ord)
        result.append({
            "guid": note.guid,
            "notetype": notetype["name"],
            "notetypeID": notetype["id"],
            "fields": dict(note.items()),
            "tags": note.tags,
            "cards": [{"ord": card.ord, "deck": collection.decks.name(card.did)} for card in cards],
        })
    return result


def media(collection):
    folder = collection.media.dir()
    result = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as file:
            result[name] = hashlib.sha256(file.read()).hexdigest()
    return result


def main(collection_path, output_path, *packages):
    collection = Collection(collection_path)
    try:
        logs = [imported(collection, package) for package in packages]
        state = {
            "version": anki.buildinfo.version,
            "imports": logs,
            "notes": notes(collection),
            "decks": sorted(deck.name for deck in collection.decks.all_names_and_ids()),
            "notetypes": sorted(
                ({"id": notetype.id, "name": notetype.name} for notetype in collection.models.all_names_and_ids()),
                key=lambda notetype: notetype["name"]),
            "media": media(collection),
        }
    finally:
        collection.close()
    with open(output_path, "w", encoding="utf-8") as output:
        json.dump(state, output, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:])
