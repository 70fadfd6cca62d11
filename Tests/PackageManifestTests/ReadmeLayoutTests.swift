import Foundation
import Testing

/// The README's package-layout table names every target under `Sources/`, no more, and marks the
/// library products — checked against what SwiftPM says the package is.
@Suite struct ReadmeLayoutTests {
    @Test func theLayoutTableMatchesThePackage() async throws {
        let description = try await ClientDependencyTests.describe()
        let sources = Set(description.targets.filter { $0.type != "test" && !($0.path ?? "").hasPrefix("Tests/") }.map(\.name))
        let readme = try String(contentsOf: ClientDependencyTests.packageRoot().appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "### Package layout"))
        let table = readme[start.upperBound...].prefix { _ in true }.components(separatedBy: "\n### ").first ?? ""
        var named = Set<String>()
        var bold = Set<String>()
        for line in table.split(separator: "\n") where line.hasPrefix("| ") && !line.hasPrefix("| target") {
            let cell = line.split(separator: "|", omittingEmptySubsequences: true).first.map(String.init) ?? ""
            for piece in cell.components(separatedBy: ",") {
                let trimmed = piece.trimmingCharacters(in: .whitespaces)
                let name = trimmed.replacingOccurrences(of: "**", with: "").replacingOccurrences(of: "`", with: "")
                guard !name.isEmpty else { continue }
                named.insert(name)
                if trimmed.hasPrefix("**") { bold.insert(name) }
            }
        }
        #expect(
            named == sources, "in the README but not the package: \(named.subtracting(sources)); missing: \(sources.subtracting(named))")
        let products = Set(description.products.flatMap(\.targets))
        #expect(bold == products, "bold in the README: \(bold.sorted()); products: \(products.sorted())")
    }
}
