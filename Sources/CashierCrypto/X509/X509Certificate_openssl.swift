internal import COpenSSL
internal import COpenSSLShims
public import Foundation

/// A parsed X.509 certificate.
///
/// ```swift
/// let root = try X509Certificate(pemRepresentation: appleRootPEM)
/// root.subjectRFC2253          // "C=US,O=Apple Inc.,OU=Apple Certification Authority,CN=Apple Root CA - G3"
/// Hex.encode(root.sha256Fingerprint)
/// root.extension(oid: "1.2.840.113635.100.6.32")?.value
/// ```
public struct X509Certificate: Sendable, Hashable {
    final class Backing: @unchecked Sendable {
        let pointer: OpaquePointer
        init(taking pointer: OpaquePointer) { self.pointer = pointer }
        deinit { X509_free(pointer) }
    }

    let backing: Backing

    /// The certificate's DER encoding.
    public let derRepresentation: [UInt8]

    init(retaining pointer: OpaquePointer) throws {
        X509_up_ref(pointer)
        let backing = Backing(taking: pointer)
        self.backing = backing
        derRepresentation = try EVPKey.encode { i2d_X509(backing.pointer, $0) }
    }

    /// Parses DER.
    /// - Throws: `CryptoError.invalidCertificate` when the bytes are not one certificate.
    public init(derRepresentation der: some ContiguousBytes) throws {
        let bytes = der.withUnsafeBytes { Array($0) }
        let parsed = bytes.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let parsed else {
            throw OpenSSLErrorQueue.error(.invalidCertificate, "not a DER X.509 certificate")
        }
        backing = Backing(taking: parsed)
        derRepresentation = bytes
    }

    /// Parses the first `CERTIFICATE` block of PEM text.
    public init(pemRepresentation text: String) throws {
        try self.init(derRepresentation: PEMDocument.first(in: text, labels: ["CERTIFICATE"]).derBytes)
    }

    /// Every `CERTIFICATE` block of PEM text (a chain or bundle), in order.
    public static func certificates(pemRepresentation text: String) throws -> [X509Certificate] {
        try PEMDocument.parseAll(text).filter { $0.label == "CERTIFICATE" }.map { try X509Certificate(derRepresentation: $0.derBytes) }
    }

    /// PEM text of the certificate.
    public var pemRepresentation: String {
        PEMDocument(label: "CERTIFICATE", derBytes: derRepresentation).pemRepresentation
    }

    public static func == (lhs: X509Certificate, rhs: X509Certificate) -> Bool {
        lhs.derRepresentation == rhs.derRepresentation
    }

    /// Hashes the last eight bytes of the DER (inside the signature value, so as distinct as
    /// certificates are) instead of the kilobyte or more of the whole: caches keyed by
    /// certificate look one up on every token. Equality still compares every byte.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(Self.cacheKey(derRepresentation))
    }

    /// The last eight bytes of a certificate's DER as a number: a cheap hash for caches.
    static func cacheKey(_ der: some Collection<UInt8>) -> UInt64 {
        der.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    // MARK: Names

    /// The subject as an RFC 2253 string (most specific attribute first, RFC escaping).
    public var subjectRFC2253: String { Self.rfc2253(X509_get_subject_name(backing.pointer)) }

    /// The issuer as an RFC 2253 string.
    public var issuerRFC2253: String { Self.rfc2253(X509_get_issuer_name(backing.pointer)) }

    /// The subject's attributes in certificate order (least specific first, usually `C` first).
    public var subjectComponents: [X509NameComponent] { Self.components(X509_get_subject_name(backing.pointer)) }

    /// The issuer's attributes in certificate order.
    public var issuerComponents: [X509NameComponent] { Self.components(X509_get_issuer_name(backing.pointer)) }

    private static func rfc2253(_ name: OpaquePointer?) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        X509_NAME_print_ex(bio, name, 0, cashier_XN_FLAG_RFC2253_UTF8())
        return bioText(bio)
    }

    private static func components(_ name: OpaquePointer?) -> [X509NameComponent] {
        (0..<X509_NAME_entry_count(name)).compactMap { index in
            guard let entry = X509_NAME_get_entry(name, index), let object = X509_NAME_ENTRY_get_object(entry),
                let data = X509_NAME_ENTRY_get_data(entry)
            else { return nil }
            var utf8: UnsafeMutablePointer<UInt8>?
            let length = ASN1_STRING_to_UTF8(&utf8, data)
            guard length >= 0, let utf8 else { return nil }
            defer { cashier_OPENSSL_free(utf8) }
            let value = String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
            let nid = OBJ_obj2nid(object)
            let shortName = nid == NID_undef ? oidString(object) : String(cString: OBJ_nid2sn(nid))
            return X509NameComponent(shortName: shortName, oid: oidString(object), value: value)
        }
    }

    // MARK: Serial, validity, fingerprint

    /// The serial number in upper-case hex, without leading zeros.
    public var serialNumberHex: String {
        Self.serial(backing.pointer) { BN_bn2hex($0) }
    }

    /// The serial number in decimal (Alipay's certificate SN uses this form).
    public var serialNumberDecimal: String {
        Self.serial(backing.pointer) { BN_bn2dec($0) }
    }

    private static func serial(_ certificate: OpaquePointer, _ render: (OpaquePointer) -> UnsafeMutablePointer<CChar>?) -> String {
        guard let number = ASN1_INTEGER_to_BN(X509_get0_serialNumber(certificate), nil) else { return "" }
        defer { BN_free(number) }
        guard let text = render(number) else { return "" }
        defer { cashier_OPENSSL_free(text) }
        return String(cString: text)
    }

    /// The start of the validity period.
    public var notValidBefore: Date { Self.date(X509_get0_notBefore(backing.pointer)) ?? .distantFuture }

    /// The end of the validity period.
    public var notValidAfter: Date { Self.date(X509_get0_notAfter(backing.pointer)) ?? .distantPast }

    /// `true` when `date` falls within the validity period.
    public func isValid(at date: Date) -> Bool {
        notValidBefore <= date && date <= notValidAfter
    }

    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    /// SHA-256 over the DER certificate.
    public var sha256Fingerprint: [UInt8] { DigestAlgorithm.sha256.hash(derRepresentation) }

    /// The DER SubjectPublicKeyInfo (Apple Pay's `publicKeyHash` is SHA-256 of this).
    public var subjectPublicKeyInfoDER: [UInt8] {
        (try? EVPKey.encode { i2d_X509_PUBKEY(X509_get_X509_PUBKEY(backing.pointer), $0) }) ?? []
    }

    /// The dotted OID of the signature algorithm, e.g. `1.2.840.113549.1.1.11` (sha256WithRSAEncryption).
    public var signatureAlgorithmOID: String {
        let nid = X509_get_signature_nid(backing.pointer)
        guard nid != NID_undef, let object = OBJ_nid2obj(nid) else { return "" }
        return Self.oidString(object)
    }

    /// `true` when the certificate is signed with RSA (any digest).
    public var isSignedWithRSA: Bool {
        var digestNID: Int32 = 0
        var keyNID: Int32 = 0
        guard OBJ_find_sigid_algs(X509_get_signature_nid(backing.pointer), &digestNID, &keyNID) == 1 else { return false }
        return keyNID == NID_rsaEncryption
    }

    // MARK: Extensions and key

    /// The extension with the dotted `oid`, or `nil`.
    public func `extension`(oid: String) -> X509Extension? {
        guard let object = OBJ_txt2obj(oid, 1) else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(backing.pointer, object, -1)
        guard index >= 0, let ext = X509_get_ext(backing.pointer, index) else { return nil }
        return Self.makeExtension(ext)
    }

    /// Every extension, in certificate order.
    public var extensions: [X509Extension] {
        (0..<X509_get_ext_count(backing.pointer)).compactMap { index in
            X509_get_ext(backing.pointer, index).map(Self.makeExtension)
        }
    }

    private static func makeExtension(_ ext: OpaquePointer) -> X509Extension {
        let data = X509_EXTENSION_get_data(ext)
        let length = Int(ASN1_STRING_length(data))
        let bytes = length > 0 ? Array(UnsafeBufferPointer(start: ASN1_STRING_get0_data(data), count: length)) : []
        return X509Extension(
            oid: oidString(X509_EXTENSION_get_object(ext)), isCritical: X509_EXTENSION_get_critical(ext) == 1, value: bytes)
    }

    func publicKeyBacking() throws -> EVPKey {
        guard let key = X509_get_pubkey(backing.pointer) else {
            throw OpenSSLErrorQueue.error(.invalidCertificate, "the certificate's public key cannot be read")
        }
        return EVPKey(taking: key)
    }

    // MARK: Helpers

    static func oidString(_ object: OpaquePointer?) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        guard length > 0 else { return "" }
        return String(decoding: buffer.prefix(Int(min(length, 127))).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func bioText(_ bio: OpaquePointer) -> String {
        var data: UnsafeMutablePointer<CChar>?
        let length = cashier_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { return "" }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }
}
