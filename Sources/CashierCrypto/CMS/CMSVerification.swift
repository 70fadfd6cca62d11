public import Foundation

/// What a successful CMS signature verification establishes.
public struct CMSVerification: Sendable {
    /// The certificate whose key made the signature.
    public let signer: X509Certificate
    /// The verified chain from the signer up to and including the trust anchor.
    public let chain: [X509Certificate]
    /// Every certificate embedded in the CMS structure, in its order.
    public let embeddedCertificates: [X509Certificate]
    /// The signer's signed `signingTime` attribute, when present.
    public let signingTime: Date?

    public init(signer: X509Certificate, chain: [X509Certificate], embeddedCertificates: [X509Certificate], signingTime: Date?) {
        self.signer = signer
        self.chain = chain
        self.embeddedCertificates = embeddedCertificates
        self.signingTime = signingTime
    }
}
