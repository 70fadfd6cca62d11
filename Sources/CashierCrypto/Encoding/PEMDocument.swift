import Foundation

/// One `-----BEGIN LABEL-----` … `-----END LABEL-----` block of a PEM file.
///
/// Text before, between and after blocks is ignored, so the "Bag Attributes" preamble that
/// `openssl pkcs12` writes and comments in certificate bundles do no harm.
///
/// ```swift
/// let blocks = try PEMDocument.parseAll(pemText)
/// blocks.first?.label // "CERTIFICATE"
/// ```
public struct PEMDocument: Hashable, Sendable {
    /// The label between `BEGIN ` and the dashes, e.g. `PRIVATE KEY`.
    public let label: String
    /// The decoded DER bytes.
    public let derBytes: [UInt8]

    public init(label: String, derBytes: [UInt8]) {
        self.label = label
        self.derBytes = derBytes
    }

    /// Every block in `text`, in order.
    /// - Throws: `CryptoError.invalidEncoding` for an unterminated block, bad base64, or an
    ///   encrypted block (with `Proc-Type`/`DEK-Info` headers), which Cashier does not decrypt.
    public static func parseAll(_ text: String) throws -> [PEMDocument] {
        var documents: [PEMDocument] = []
        var label: String?
        var body = ""
        // `isNewline`, not `== "\n"`: CRLF is one Character ("\r\n"), as in UnionPay's `signPubKeyCert`.
        for rawLine in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if let current = label {
                if line == "-----END \(current)-----" {
                    let bytes = try Base64.decode(body)
                    documents.append(PEMDocument(label: current, derBytes: Array(bytes)))
                    label = nil
                    body = ""
                } else if line.contains(":") {
                    throw CryptoError(.invalidEncoding, "PEM block '\(current)' has headers (an encrypted key?); decrypt it first")
                } else {
                    body += line
                }
            } else if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----"), line.count > 16 {
                label = String(line.dropFirst(11).dropLast(5))
            }
        }
        if let label {
            throw CryptoError(.invalidEncoding, "PEM block '\(label)' has no END line")
        }
        return documents
    }

    /// The first block whose label is one of `labels`.
    /// - Throws: `CryptoError.invalidEncoding` when there is none.
    public static func first(in text: String, labels: Set<String>) throws -> PEMDocument {
        guard let document = try parseAll(text).first(where: { labels.contains($0.label) }) else {
            let expected = labels.sorted().joined(separator: "' or '")
            throw CryptoError(.invalidEncoding, "no PEM block labelled '\(expected)' found")
        }
        return document
    }

    /// The block as PEM text, 64 characters a line, ending in a newline.
    public var pemRepresentation: String {
        let encoded = Base64.encode(derBytes)
        var lines = ["-----BEGIN \(label)-----"]
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let end = encoded.index(index, offsetBy: 64, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(String(encoded[index..<end]))
            index = end
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }
}
