import Foundation
import TestSupport
import Testing

/// The release tarball's manifest (`deploy/release-manifest.txt`, read by `scripts/release`)
/// against the files it ships: every source exists, every path the container file, the systemd
/// unit and the docs name is in the tarball, and `make release` / `make release-check` are
/// there. Cheap: it builds nothing (`make release-check`, in `make check-long`, builds and runs
/// the tarball on a bare Debian).
@Suite struct ReleasePackagingTests {
    static let root = ClientDependencyTests.packageRoot()

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// `(source, destination)` pairs of the manifest.
    static func manifest() throws -> [(source: String, destination: String)] {
        try text("deploy/release-manifest.txt").split(separator: "\n").compactMap { line in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let first = fields.first, !first.hasPrefix("#"), fields.count == 2 else { return nil }
            return (String(first), String(fields[1]))
        }
    }

    @Test func everySourceExistsAndTheBinaryIsShipped() throws {
        let entries = try Self.manifest()
        #expect(entries.count >= 10)
        #expect(entries.contains { $0.source == "@cashier" && $0.destination == "bin/cashier" })
        for entry in entries where entry.source != "@cashier" {
            #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(entry.source).path), "\(entry.source)")
        }
        #expect(Set(entries.map(\.destination)).count == entries.count, "a path in the tarball is given twice")
        // Every page of docs/deploy goes along.
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs/deploy").path)
        for page in pages where page.hasSuffix(".md") {
            #expect(entries.contains { $0.source == "docs/deploy/" + page }, "docs/deploy/\(page) is not in the tarball")
        }
    }

    /// The container file is built from the unpacked tarball: each COPY source is a path in it.
    @Test func theContainerFileCopiesOnlyWhatTheTarballHolds() throws {
        let destinations = Set(try Self.manifest().map(\.destination))
        let copies = try Self.text("deploy/Containerfile").split(separator: "\n").filter { $0.hasPrefix("COPY ") }
        #expect(copies.count >= 3)
        for line in copies {
            let words = line.split(separator: " ").dropFirst().filter { !$0.hasPrefix("--") }
            for source in words.dropLast() {
                #expect(destinations.contains(String(source)), "COPY \(source): not in the tarball")
            }
        }
        // It installs the runtime packages from the shipped list, runs as a user, and stops with SIGTERM.
        let file = try Self.text("deploy/Containerfile")
        #expect(file.contains("runtime-packages.txt") && file.contains("USER cashier") && file.contains("STOPSIGNAL SIGTERM"))
        #expect(file.contains("FROM debian:bookworm-slim"))
    }

    /// The systemd unit has the hardening the docs promise and runs what the tarball installs.
    @Test func theSystemdUnitIsHardened() throws {
        let unit = try Self.text("deploy/cashier.service")
        for setting in [
            "NoNewPrivileges=yes", "ProtectSystem=strict", "ReadWritePaths=/var/lib/cashier", "LoadCredential=secret_key:",
            "ExecReload=/bin/kill -HUP $MAINPID", "User=cashier", "PrivateTmp=yes", "CapabilityBoundingSet=",
        ] {
            #expect(unit.contains(setting), "\(setting)")
        }
        let start = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        #expect(start.contains("/usr/local/bin/cashier serve --config /etc/cashier/cashier.json"))
        #expect(start.contains("--db /var/lib/cashier/"), "the database lives where ReadWritePaths lets it be written")
    }

    /// `make release` runs the script, `make release-check` runs the tarball, and `check-long` includes it.
    @Test func theMakefileHasTheTargets() throws {
        let makefile = try Self.text("Makefile")
        #expect(makefile.contains("\nrelease: ") && makefile.contains("scripts/release\n"))
        #expect(makefile.contains("\nrelease-check: ") && makefile.contains("scripts/release-check"))
        let checkLong = try #require(makefile.split(separator: "\n").first { $0.hasPrefix("check-long:") })
        #expect(checkLong.contains("release-check"))
        let script = try Self.text("scripts/release")
        #expect(script.contains("--static-swift-stdlib") && script.contains("deploy/release-manifest.txt") && script.contains("SHA256SUMS"))
        #expect(script.contains(".build/release-artifacts"))
        // The artefacts are never committed.
        #expect(try Self.text(".gitignore").contains(".build"))
    }

    /// The runtime packages are what Debian calls the libraries the binary loads (besides glibc's).
    @Test func theRuntimePackagesAreDebianNames() throws {
        let packages = try Self.text("deploy/runtime-packages.txt").split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
        #expect(Set(packages).isSuperset(of: ["libssl3", "libcurl4", "libsqlite3-0", "libpq5", "libmicrohttpd12", "ca-certificates"]))
        #expect(packages.allSatisfy { $0.allSatisfy { $0.isLetter || $0.isNumber || "-.+".contains($0) } })
    }
}
