import Cashier
import Foundation
import TestSupport
import Testing

@Suite struct PrivateFileTests {
    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test func writtenFilesAreTheOwnersAloneFromTheStart() throws {
        let folder = Scratch.url("private-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("key.pem").path
        try PrivateFile.write(Data("secret".utf8), to: path)
        #expect(try mode(path) == 0o600)
        #expect(FileManager.default.contents(atPath: path) == Data("secret".utf8))
        // Replacing it keeps it private, and leaves no temporary file behind.
        try PrivateFile.write(Data("again".utf8), to: path)
        #expect(try mode(path) == 0o600 && FileManager.default.contents(atPath: path) == Data("again".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["key.pem"])
        #expect(throws: (any Error).self) { try PrivateFile.write(Data(), to: folder.appendingPathComponent("no/such/dir").path) }
        // An existing file's permissions are its owner's choice.
        let shared = folder.appendingPathComponent("shared.db").path
        #expect(FileManager.default.createFile(atPath: shared, contents: nil, attributes: [.posixPermissions: 0o640]))
        PrivateFile.createIfMissing(shared)
        #expect(try mode(shared) == 0o640)
        let fresh = folder.appendingPathComponent("fresh.db").path
        PrivateFile.createIfMissing(fresh)
        #expect(try mode(fresh) == 0o600)
    }
}
