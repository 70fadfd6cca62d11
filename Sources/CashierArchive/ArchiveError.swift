/// A compressed file that could not be read or written, and why.
public struct ArchiveError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String
    /// For an archive without the file asked for: the names of the files it holds (else `nil`).
    public let heldFiles: [String]?

    public init(_ message: String, heldFiles: [String]? = nil) {
        self.message = message
        self.heldFiles = heldFiles
    }

    public var description: String { message }
}
