/// The files of the vault `locker init` writes, compiled into `locker` from `templates/starter/`.
public enum StarterTemplates {
    /// Every file by its name in `templates/starter/`.
    public static let all: [String: String] = [
        "locker.yml": text(PackageResources.locker_yml),
        "gitignore": text(PackageResources.gitignore),
        "README.md": text(PackageResources.README_md),
        "guide.en.md": text(PackageResources.guide_en_md),
        "guide.ru.md": text(PackageResources.guide_ru_md),
        "checklist.en.md": text(PackageResources.checklist_en_md),
        "checklist.ru.md": text(PackageResources.checklist_ru_md),
        "deck.en.md": text(PackageResources.deck_en_md),
        "deck.ru.md": text(PackageResources.deck_ru_md),
        "page.en.md": text(PackageResources.page_en_md),
        "page.ru.md": text(PackageResources.page_ru_md),
        "workflow.yml": text(PackageResources.workflow_yml),
        "action.yml": text(PackageResources.action_yml),
    ]

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
