import LockerKit

extension Guide {
    /// Every link in the guide, in reading order of blocks, with its text.
    var links: [(text: String, target: LinkTarget)] {
        var result: [(String, LinkTarget)] = []
        func walkSpans(_ spans: [Span]) {
            for span in spans {
                switch span {
                case .link(let target, let children): result.append((children.plainText, target))
                case .bold(let children), .italic(let children), .strikethrough(let children), .highlight(let children):
                    walkSpans(children)
                default: break
                }
            }
        }
        for block in allBlocks {
            switch block.content {
            case .paragraph(let content): walkSpans(content)
            case .callout(let callout): callout.title.map(walkSpans)
            case .table(let table):
                table.header.forEach(walkSpans)
                table.rows.forEach { $0.forEach(walkSpans) }
            default: break
            }
        }
        return result
    }

    /// Every block, depth first, including those in sections and embeds.
    var allBlocks: [Block] {
        var result: [Block] = []
        func walkBlocks(_ list: [Block]) {
            for block in list {
                result.append(block)
                switch block.content {
                case .list(let list): list.items.forEach { walkBlocks($0.blocks) }
                case .callout(let callout): walkBlocks(callout.blocks)
                case .quote(let children): walkBlocks(children)
                case .embed(let embed):
                    walkBlocks(embed.blocks)
                    walkSections(embed.sections)
                default: break
                }
            }
        }
        func walkSections(_ list: [Section]) {
            for section in list {
                walkBlocks(section.blocks)
                walkSections(section.sections)
            }
        }
        walkBlocks(self.blocks)
        walkSections(self.sections)
        return result
    }
}

extension LinkTarget {
    /// `kind/id#anchor` or the URL, for compact expectations.
    var summary: String {
        switch self {
        case .url(let url): url
        case .document(let kind, let id, _, let anchor): "\(kind)/\(id)" + (anchor.map { "#" + $0 } ?? "")
        }
    }
}
