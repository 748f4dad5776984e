/// The files an app that shows some of a bundle's locales needs.
extension Manifest {
    /// The files a reader of `locales` needs: the indexes of those locales, for each document the
    /// version each of them reads (documents are the files with an `id`) (its own translation, else the fallback
    /// ``LocalePreference`` picks, as the indexes do), every asset, and any file of a later
    /// kind in one of those locales or in none. `nil` means every file.
    public func files(forLocales locales: [String]?) -> [File] {
        guard let locales else { return files }
        let wanted = Set(locales)
        let preference = LocalePreference(locales: self.locales, defaultLocale: defaultLocale)
        // Each document's versions, by kind and ID.
        var versions: [String: [String: [String]]] = [:]
        for file in files {
            if let id = file.id, let locale = file.locale {
                versions[file.kind, default: [:]][id, default: []].append(locale)
            }
        }
        return files.filter { file in
            guard let locale = file.locale else { return true }
            guard let id = file.id, let present = versions[file.kind]?[id] else { return wanted.contains(locale) }
            return locales.contains { preference.preferred(present, in: $0) { $0 } == locale }
        }
    }
}
