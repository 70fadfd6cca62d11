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
            FileManager.default.createFile(atPath: temporary.appendingPathComponent(name + "/cashier.db").path, contents: Data("x".utf8))
        }
        Scratch.removeFoldersOfEndedProcesses(in: temporary)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: temporary.path))
        #expect(left == Set(names.dropFirst()))
    }
}
