internal import CQREncode

/// A QR code drawn as SVG (libqrencode encodes; this only draws the modules): one path, a
/// four-module quiet zone, crisp edges — what a phone camera or a decoder reads off the screen.
public enum QRCodeSVG {
    /// - Returns: `nil` when the text does not fit a QR code (over about 2.9 KB).
    public static func svg(for text: String, pixelsPerModule: Int = 6) -> String? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let quiet = 4
        let size = width + 2 * quiet
        var path = ""
        for y in 0..<width {
            for x in 0..<width where code.pointee.data[y * width + x] & 1 == 1 {
                path += "M\(x + quiet) \(y + quiet)h1v1h-1z"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(size) \(size)" width="\(size * pixelsPerModule)" \
            height="\(size * pixelsPerModule)" shape-rendering="crispEdges" role="img" aria-label="QR code">\
            <rect width="\(size)" height="\(size)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
            """
    }
}
