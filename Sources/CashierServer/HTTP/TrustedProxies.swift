import CashierHTTP
import Foundation

/// The proxies in front of the server (`http.trusted_proxies`: addresses or CIDR blocks) whose
/// `X-Forwarded-For` is believed. The payer's address is the nearest one in that header not
/// itself a trusted proxy — read from the right, since anything left of the last trusted hop
/// could have been written by the payer. A request straight from an untrusted address is from
/// that address, whatever its headers say.
struct TrustedProxies: Sendable, Equatable {
    /// One block: an address's bytes (4 or 16) and how many leading bits must match.
    struct Block: Sendable, Equatable {
        let bytes: [UInt8]
        let prefixLength: Int

        /// `10.0.0.0/8`, `::1`, `fd00::/8`. - Returns: `nil` when it is not an address or block.
        init?(_ text: String) {
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bytes = TrustedProxies.addressBytes(String(parts[0])) else { return nil }
            let bits = bytes.count * 8
            if parts.count == 2 {
                guard let length = Int(parts[1]), (0...bits).contains(length) else { return nil }
                prefixLength = length
            } else {
                prefixLength = bits
            }
            self.bytes = bytes
        }

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for (a, b) in zip(address, bytes) where remaining > 0 {
                let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
                guard a & mask == b & mask else { return false }
                remaining -= 8
            }
            return true
        }
    }

    let blocks: [Block]

    init(_ blocks: [Block] = []) {
        self.blocks = blocks
    }

    /// - Throws: naming the first entry that is not an address or CIDR block.
    init(parsing entries: [String]) throws {
        blocks = try entries.map { entry in
            guard let block = Block(entry) else {
                throw RequestProblem("'\(entry)' is not an IP address or CIDR block (e.g. 10.0.0.0/8)")
            }
            return block
        }
    }

    func isTrusted(_ address: String) -> Bool {
        guard let bytes = Self.addressBytes(address) else { return false }
        return blocks.contains { $0.contains(bytes) }
    }

    /// The payer's address: `remote` (the socket's peer) unless it is a trusted proxy, then the
    /// rightmost `X-Forwarded-For` entry that is not one. `nil` when nothing usable is known.
    func clientAddress(remote: String?, forwardedFor: String?) -> String? {
        guard let remote = remote.map(Self.unmapped) else { return nil }
        guard isTrusted(remote), let forwardedFor else { return remote }
        let hops = forwardedFor.split(separator: ",").map { Self.unmapped($0.trimmingCharacters(in: .whitespaces)) }
        for hop in hops.reversed() {
            guard Self.addressBytes(hop) != nil else { return remote }  // a hop that is no address: stop believing
            if !isTrusted(hop) { return hop }
        }
        return hops.first ?? remote
    }

    /// ``clientAddress(remote:forwardedFor:)`` of `request`: its peer and its `X-Forwarded-For`.
    func clientAddress(of request: HTTPServerRequest) -> String? {
        clientAddress(remote: request.remoteAddress, forwardedFor: request.headers["X-Forwarded-For"])
    }

    /// `::ffff:192.0.2.1` (a dual-stack socket's IPv4 peer) as `192.0.2.1`.
    static func unmapped(_ address: String) -> String {
        let prefix = "::ffff:"
        guard address.lowercased().hasPrefix(prefix) else { return address }
        let rest = String(address.dropFirst(prefix.count))
        return addressBytes(rest)?.count == 4 ? rest : address
    }

    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
