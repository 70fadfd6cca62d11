import Foundation
import Testing

/// The documents follow the package: the layout table in docs/architecture.md names every target
/// under `Sources/`, no more, and marks the products; the README's product table names exactly
/// the products; the README stays short, links every page under docs/, and no relative link in
/// the documents points at a file or heading that is not there.
@Suite struct ReadmeLayoutTests {
    static let root = ClientDependencyTests.packageRoot()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The rows of the first table after the heading that contains `heading`: each row's first
    /// cell split at commas, as (name without backticks or asterisks, whether it is bold).
    static func firstColumn(of text: String, under heading: String) throws -> [(name: String, bold: Bool)] {
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("#") && $0.contains(heading) }, "no heading '\(heading)'")
        let table = lines[(start + 1)...].drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
        #expect(table.count > 2, "no table under '\(heading)'")
        var cells: [(String, Bool)] = []
        for line in table.dropFirst(2) {
            let cell = line.split(separator: "|", omittingEmptySubsequences: true).first.map(String.init) ?? ""
            for piece in cell.components(separatedBy: ",") {
                let trimmed = piece.trimmingCharacters(in: .whitespaces)
                let name = trimmed.replacingOccurrences(of: "**", with: "").replacingOccurrences(of: "`", with: "")
                guard !name.isEmpty else { continue }
                cells.append((name, trimmed.hasPrefix("**")))
            }
        }
        return cells
    }

    @Test func theLayoutTableMatchesThePackage() async throws {
        let description = try await ClientDependencyTests.describe()
        let sources = Set(description.targets.filter { $0.type != "test" && !($0.path ?? "").hasPrefix("Tests/") }.map(\.name))
        let rows = try Self.firstColumn(of: Self.text("docs/architecture.md"), under: "Package layout")
        let named = Set(rows.map(\.name))
        let bold = Set(rows.filter(\.bold).map(\.name))
        #expect(
            named == sources,
            "in docs/architecture.md but not the package: \(named.subtracting(sources)); missing: \(sources.subtracting(named))")
        let products = Set(description.products.flatMap(\.targets))
        #expect(bold == products, "bold in docs/architecture.md: \(bold.sorted()); products: \(products.sorted())")
    }

    @Test func theReadmesProductTableNamesEveryProduct() async throws {
        let description = try await ClientDependencyTests.describe()
        let rows = try Self.firstColumn(of: Self.text("README.md"), under: "Packages")
        let products = Set(description.products.flatMap(\.targets))
        #expect(Set(rows.map(\.name)) == products, "the README's table: \(rows.map(\.name).sorted()); products: \(products.sorted())")
        let plain = rows.filter { !$0.bold }.map(\.name)
        #expect(plain.isEmpty, "every product is bold in the README: \(plain)")
    }

    /// A new user's page: short, with the two commands, and an index of everything under docs/.
    @Test func theReadmeIsShortAndLinksEveryDocument() throws {
        let readme = try Self.text("README.md")
        let lineCount = readme.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(lineCount <= 300, "README.md has \(lineCount) lines")
        #expect(readme.contains("make demo") && readme.contains("make test"))
        let links = Set(Self.links(in: readme).map { $0.components(separatedBy: "#")[0] })
        let docs = Self.root.appendingPathComponent("docs")
        var unlinked: [String] = []
        for case let file as URL in FileManager.default.enumerator(at: docs, includingPropertiesForKeys: nil) ?? .init()
        where !file.hasDirectoryPath && file.pathExtension != "png" && !file.path.contains("__pycache__") {
            let relative = "docs/" + file.path.dropFirst(docs.path.count + 1)
            if !links.contains(relative) { unlinked.append(relative) }
        }
        #expect(unlinked.isEmpty, "not linked from the README's index: \(unlinked.sorted())")
    }

    /// Every relative link in the README, CONTRIBUTING.md and docs/ names a file that exists, and
    /// a `#fragment` names one of that page's headings (as GitHub makes their anchors).
    @Test func everyRelativeLinkResolves() throws {
        var pages = ["README.md", "CONTRIBUTING.md"]
        let docs = Self.root.appendingPathComponent("docs")
        for case let file as URL in FileManager.default.enumerator(at: docs, includingPropertiesForKeys: nil) ?? .init()
        where file.pathExtension == "md" {
            pages.append("docs/" + file.path.dropFirst(docs.path.count + 1))
        }
        #expect(pages.count > 20, "found \(pages.count) pages")
        var broken: [String] = []
        for page in pages {
            let folder = (page as NSString).deletingLastPathComponent
            for link in Self.links(in: try Self.text(page)) {
                let parts = link.components(separatedBy: "#")
                let path = parts[0].isEmpty ? page : ((folder as NSString).appendingPathComponent(parts[0]) as NSString).standardizingPath
                guard FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path) else {
                    broken.append("\(page): \(link)")
                    continue
                }
                if parts.count > 1, path.hasSuffix(".md"), !Self.anchors(in: try Self.text(path)).contains(parts[1]) {
                    broken.append("\(page): \(link) (no such heading)")
                }
            }
        }
        #expect(broken.isEmpty, "broken links: \(broken)")
    }

    /// The targets of `[text](target)` that are not absolute URLs, outside code blocks and spans.
    static func links(in text: String) -> [String] {
        var inFence = false
        var found: [String] = []
        let pattern = try! NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") { inFence.toggle() }
            if inFence { continue }
            let prose = line.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
            for match in pattern.matches(in: prose, range: NSRange(prose.startIndex..., in: prose)) {
                let target = String(prose[Range(match.range(at: 1), in: prose)!])
                if target.contains("://") || target.hasPrefix("mailto:") { continue }
                found.append(target)
            }
        }
        return found
    }

    /// GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces to hyphens.
    static func anchors(in text: String) -> Set<String> {
        var inFence = false
        var anchors = Set<String>()
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") { inFence.toggle() }
            guard !inFence, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            let kept = title.unicodeScalars.filter {
                CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_"
            }
            anchors.insert(String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-"))
        }
        return anchors
    }
}
