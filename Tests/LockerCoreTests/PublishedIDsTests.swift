import Foundation
import LockerKit
import Testing

@testable import LockerCore

/// Every card and checklist item ID the default vault has published: the apps keep each sailor's
/// reviews and ticks under them, so content may reword, reorder and add, but never drop or rename
/// one of these. A new ID joins the lists once it is published.
@Suite struct PublishedIDsTests {
    static let cards: [String: [String]] = [
        "colregs-rules": [
            "motor-sailing", "underway", "lookout", "safe-speed", "doubt-risk", "steady-bearing", "action",
            "narrow-channel", "not-impede-channel", "tss-crossing", "port-tack", "windward", "port-tack-doubt",
            "windward-side", "overtaking-definition", "overtaking", "head-on", "crossing", "give-way", "stand-on",
            "sailing-gives-way", "constrained-draught", "fog-signal-ahead",
        ],
        "day-shapes": [
            "ball", "three-balls", "two-balls", "ball-diamond-ball", "cylinder", "two-cones", "cone-up", "cone-down",
            "diamond", "dredging", "flag-a", "mine-clearance",
        ],
        "navigation-lights": [
            "masthead-light", "sidelights", "sternlight", "towing-light", "all-round-light", "power-driven",
            "power-under-12", "sailing", "tricolour", "red-over-green", "torch", "anchor-lights",
            "anchor-light-small", "aground", "not-under-command", "restricted", "constrained", "trawling", "fishing",
            "pilot", "towing", "hovercraft",
        ],
        "sound-signals": [
            "short-blast", "prolonged-blast", "one-short", "two-short", "three-short", "five-short",
            "overtake-starboard", "overtake-port", "agree-overtake", "bend", "fog-making-way", "fog-stopped",
            "fog-sailing", "fog-towed", "fog-anchor", "fog-aground",
        ],
    ]

    static let items: [String: [String]] = [
        "check-in": [
            "registration", "insurance", "charter-agreement", "licences", "radio-licence", "cruising-permit",
            "life-jackets", "extinguishers-present", "epirb", "impeller", "alternator-belt", "engine-fluids",
            "winch-handles", "sail-repair-kit", "chartplotter", "vhf", "compass", "paper-charts", "binoculars",
            "swim-ladder", "gangway", "fenders", "boat-hook", "dinghy", "oars", "outboard", "water-pump",
            "bilge-pumps", "nav-lights-switch", "battery-monitor", "battery-charger", "sockets", "shore-cable",
            "cabin-lights", "hatches", "cushions", "floorboards", "toilet", "heads-fittings", "gas-stove", "fridge",
            "engine-clean", "oil-level", "coolant", "belt", "steering", "stern-pulpit", "mooring-lines",
            "stanchions", "hull-damage", "bow-lights", "windlass", "anchor-chain", "engine-start", "gears",
            "engine-hours", "depth-log", "autopilot", "wind-instruments", "winches", "running-rigging",
            "standing-rigging", "boom", "genoa", "mainsail", "furling-main", "generator", "air-conditioning",
            "watermaker", "life-jackets-check", "harnesses", "life-raft", "lifebuoy", "flares",
            "extinguishers-check", "detectors", "first-aid-kit", "defects-recorded", "systems-questions",
            "port-documents", "emergency-contacts",
        ],
        "daily": [
            "oil", "coolant", "strainer", "belt", "leaks", "fuel", "bilge", "batteries", "water", "holding-tank",
            "gas-off", "deck-walk", "ground-tackle", "dinghy",
        ],
        "post-charter": [
            "refuel", "empty-holding-tank", "damage-list", "belongings", "fridge-empty", "tidy", "inventory",
            "sails-stowed", "lines-coiled", "dinghy-returned", "inspection", "deposit",
        ],
        "pre-departure": [
            "forecast", "route", "plan-b", "engine-checks", "engine-running", "fuel-water", "shore-power-off",
            "instruments-on", "hatches-closed", "gear-stowed", "dinghy-secured", "lines-briefed", "safety-briefing",
            "life-jackets-worn", "plan-ashore",
        ],
    ]

    @Test(arguments: cards.keys.sorted())
    func everyPublishedCardIsStillInItsDeck(_ deck: String) throws {
        let versions = try DefaultContentTests.compile().decks.filter { $0.id == deck }
        Self.expect(Self.cards[deck] ?? [], in: versions.map { ($0.locale, $0.cards.map(\.id)) }, of: deck)
    }

    @Test(arguments: items.keys.sorted())
    func everyPublishedItemIsStillInItsChecklist(_ checklist: String) throws {
        let versions = try DefaultContentTests.compile().checklists.filter { $0.id == checklist }
        Self.expect(Self.items[checklist] ?? [], in: versions.map { ($0.locale, $0.items.map(\.id)) }, of: checklist)
    }

    /// Both languages of a document are there, and each still has every ID in `published`.
    static func expect(_ published: [String], in versions: [(locale: String, ids: [String])], of document: String) {
        #expect(versions.map(\.locale).sorted() == ["en", "ru"], "\(document)")
        for version in versions {
            let present = Set(version.ids)
            let missing = published.filter { !present.contains($0) }
            #expect(missing.isEmpty, "\(document) (\(version.locale)) lost \(missing)")
        }
    }
}
