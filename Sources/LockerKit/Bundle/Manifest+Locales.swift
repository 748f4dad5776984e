/// The files an app that shows some of a bundle's locales needs.
extension Manifest {
    /// The files a reader of `locales` needs: for each document and each kind's index, the
    /// version each of those locales reads (its own, else the fallback ``LocalePreference``
    /// picks, as the indexes and ``ContentBundle`` do), every asset, and any other file in one
    /// of those locales or in none. `nil` means every file.
    public func files(forLocales locales: [String]?) -> [File] {
        guard let locales else { return files }
        let wanted = Set(locales)
        let preference = LocalePreference(locales: self.locales, defaultLocale: defaultLocale)
        // The versions of each document (by kind and ID) and of each kind's index (by the kind
        // it lists), by locale.
        var versions: [String: [String]] = [:]
        for file in files {
            if let key = Self.versionKey(of: file), let locale = file.locale {
                versions[key, default: []].append(locale)
            }
        }
        return files.filter { file in
            guard let locale = file.locale else { return true }
            guard let key = Self.versionKey(of: file), let present = versions[key] else {
                return wanted.contains(locale)
            }
            return locales.contains { preference.preferred(present, in: $0) { $0 } == locale }
        }
    }

    /// What the translations of a file share: a document's kind and ID, an index's listed kind;
    /// nil for any other file.
    private static func versionKey(of file: File) -> String? {
        if let id = file.id { return "\(file.kind)\t\(id)" }
        if file.kind == "index", let lists = file.lists { return "index\t\(lists)" }
        return nil
    }
}
