import ChildProcesses
import Foundation
import TestSupport
import Testing

/// The tests' scratch folders: one per test process, in TMPDIR; `scripts/with-scratch` checks
/// after `make test` that none is left.
@Suite struct ScratchTests {
    @Test func filesGoInThisProcesssFolder() throws {
        let temporary = FileManager.default.temporaryDirectory.standardizedFileURL.path
        #expect(Scratch.folder.lastPathComponent == "\(Scratch.prefix)\(getpid())")
        #expect(Scratch.folder.deletingLastPathComponent().standardizedFileURL.path == temporary)
        #expect(Scratch.path("a.db") == Scratch.folder.appendingPathComponent("a.db").path)
        let mode = try FileManager.default.attributesOfItem(atPath: Scratch.folder.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        #expect(Scratch.childEnvironment == ["TMPDIR": Scratch.folder.path])
    }

    @Test func foldersOfEndedProcessesAreRemovedAndLiveOnesKept() throws {
        let temporary = Scratch.url("sweep-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: temporary) }
        // A process that has ended: its pid is free (until the system reuses it, which the
        // wait just before makes unlikely).
        let ended = try ChildProcess("/bin/true", [])
        ended.waitUntilExit()
        let names = [
            "\(Scratch.prefix)\(ended.processIdentifier)", "\(Scratch.prefix)1", "\(Scratch.prefix)\(getpid())", "\(Scratch.prefix)x",
            "other-1",
        ]
        for name in names {
            try FileManager.default.createDirectory(at: temporary.appendingPathComponent(name), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: temporary.appendingPathComponent(name + "/cashier.db"))
        }
        Scratch.removeFoldersOfEndedProcesses(in: temporary)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: temporary.path))
        #expect(left == Set(names.dropFirst()))
    }

    /// `scripts/with-scratch`, which `make test` runs the suite under, fails a run that leaves a
    /// file in its TMPDIR, and passes one that leaves only the toolchain's own.
    @Test func withScratchFailsARunThatLeavesAFile() async throws {
        let script = packageRoot.appendingPathComponent("scripts/with-scratch").path
        let leaves = try await runSubprocess(
            script, ["/bin/sh", "-c", "mkdir \"$TMPDIR/cashier-tests-1\" && touch \"$TMPDIR/cashier-tests-1/money.db\""])
        #expect(leaves.status == 1 && leaves.stderr.contains("cashier-tests-1/money.db"), "\(leaves.stderr)")
        let toolchain = try await runSubprocess(
            script,
            [
                "/bin/sh", "-c",
                "mkdir \"$TMPDIR/TemporaryDirectory.abc123\" \"$TMPDIR/swift-generated-sources\" && touch \"$TMPDIR/_root_.swiftpm.lock\" "
                    + "\"$TMPDIR/TemporaryDirectory.abc123/.keep-directory\" \"$TMPDIR/swift-generated-sources/@__swiftmacro_x.swift\"",
            ])
        #expect(toolchain.status == 0 && toolchain.stderr.contains("left nothing"), "\(toolchain.stderr)")
        // The command's own failure is kept.
        #expect(try await runSubprocess(script, ["/bin/sh", "-c", "exit 3"]).status == 3)
    }
}
