public import Foundation

/// Files a user names — a configuration, a key, a catalog, a token — read whole; when one cannot
/// be used, the error says why in words that say what to fix ("does not exist, nor does the folder
/// /etc/cashier", "is a folder, not a file", "is not valid JSON: … at line 3, column 14").
public enum UserFile {
    /// Why a file the user named cannot be used.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        /// The file, as the user gave it.
        public let path: String
        /// What is wrong, as a predicate: "does not exist".
        public let reason: String
        /// `path reason`: "/etc/cashier/cashier.json does not exist".
        public var description: String { "\(path) \(reason)" }

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// The file's bytes. - Throws: ``Problem`` saying why it cannot be read.
    public static func contents(_ path: String) throws(Problem) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(path: path, reason: whyUnreadable(path))
        }
        return data
    }

    /// The file's JSON object. - Throws: ``Problem`` when it cannot be read, is not JSON (with the
    /// line and column the parser stopped at), or holds JSON that is not an object.
    public static func jsonObject(_ path: String) throws(Problem) -> [String: Any] {
        let data = try contents(path)
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw Problem(path: path, reason: "is not valid JSON: \(parserWords(error, in: data))")
        }
        guard let object = parsed as? [String: Any] else {
            throw Problem(path: path, reason: "holds JSON that is not an object (it must start with {)")
        }
        return object
    }

    /// Why `path` cannot be read: it does not exist (nor, perhaps, its folder), is a folder, or
    /// this user may not read it.
    public static func whyUnreadable(_ path: String) -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            let folder = (path as NSString).deletingLastPathComponent
            if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
                return "does not exist, nor does the folder \(folder)"
            }
            return "does not exist"
        }
        if isFolder.boolValue { return "is a folder, not a file" }
        guard FileManager.default.isReadableFile(atPath: path) else {
            let mode = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int).map { String($0, radix: 8) }
            return "cannot be read by this user" + (mode.map { " (its mode is 0\($0))" } ?? "")
        }
        return "cannot be read"
    }

    /// Why a file cannot be written at `path` — its folder does not exist or is not a folder,
    /// this user may not write there, or `path` is a folder — or `nil` when nothing is in the way.
    public static func whyUnwritable(_ path: String) -> String? {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder.boolValue { return "is a folder, not a file" }
            return FileManager.default.isWritableFile(atPath: path) ? nil : "cannot be written by this user"
        }
        let named = (path as NSString).deletingLastPathComponent
        let folder = named.isEmpty ? FileManager.default.currentDirectoryPath : named
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            return "cannot be written: the folder \(folder) does not exist"
        }
        guard isFolder.boolValue else { return "cannot be written: \(folder) is not a folder" }
        return FileManager.default.isWritableFile(atPath: folder) ? nil : "cannot be written: this user may not write in \(folder)"
    }

    /// The parser's own words, with "around character N" turned into a line and a column.
    public static func parserWords(_ error: any Error, in data: Data) -> String {
        let words = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "the parser stopped"
        guard let range = words.range(of: #"around character (\d+)"#, options: .regularExpression),
            let offset = Int(words[range].split(separator: " ").last ?? "")
        else { return words.hasSuffix(".") ? String(words.dropLast()) : words }
        let before = data.prefix(offset)
        let line = before.count { $0 == 0x0A } + 1
        let column = before.count - ((before.lastIndex(of: 0x0A)).map { $0 - before.startIndex + 1 } ?? 0) + 1
        return words[..<range.lowerBound].trimmingCharacters(in: .whitespaces) + " at line \(line), column \(column)"
    }
}
