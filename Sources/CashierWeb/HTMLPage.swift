public import Cashier
import CashierCrypto
public import CashierHTTP

/// A server-rendered page with a strict Content-Security-Policy: nothing loads from elsewhere;
/// the one stylesheet and the page's script (if any) are inline and allowed by their SHA-256
/// hashes, never by `'unsafe-inline'`; forms post only to this origin (and the origins named in
/// ``formTargets``); the page cannot be framed. Every value interpolated into ``body`` must go
/// through Cashier's `HTMLText.escape(_:)` — the callers do, and the browser tests try a stored XSS.
public struct HTMLPage: Sendable {
    public var title: String
    /// The `<body>` content, already escaped where it carries data.
    public var body: String
    /// Inline JavaScript for the page (hashed into the policy).
    public var script: String?
    /// Origins a form on this page may post or redirect to, besides this one (e.g. a `return_url`'s).
    public var formTargets: [String]
    /// Whether the page's script may call back to this origin (`connect-src 'self'`: an
    /// `EventSource`, a `fetch`); nowhere else, ever.
    public var connectsToSelf: Bool
    /// The document's language (`lang`).
    public var language: String
    public var status: Int
    /// Extra headers (`Set-Cookie`, …).
    public var headers: HTTPHeaders

    public init(
        title: String, body: String, script: String? = nil, formTargets: [String] = [], status: Int = 200, headers: HTTPHeaders = [:],
        connectsToSelf: Bool = false, language: String = "en"
    ) {
        self.connectsToSelf = connectsToSelf
        self.language = language
        self.title = title
        self.body = body
        self.script = script
        self.formTargets = formTargets
        self.status = status
        self.headers = headers
    }

    /// The one stylesheet every page shares.
    public static let stylesheet = """
        body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2330;background:#f6f7f9}\
        header{background:#1d2330;color:#fff;padding:.7rem 1.5rem;display:flex;gap:1.5rem;align-items:center}\
        header a{color:#cfd6e4;text-decoration:none}header a:hover{color:#fff}header strong{margin-right:auto}\
        main{max-width:68rem;margin:1.5rem auto;padding:0 1.5rem}h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}\
        table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid #e3e6ec}\
        th{font-size:.8rem;text-transform:uppercase;color:#5b6475}tr.flagged{background:#fff4e0}\
        .badge{display:inline-block;padding:.05rem .5rem;border-radius:1rem;font-size:.8rem;background:#e3e6ec}\
        .paid,.refunded,.partially_refunded{background:#d8f3dc}.closed,.failed{background:#f8d7da}.pending{background:#fff3bf}\
        .amount{font-variant-numeric:tabular-nums;white-space:nowrap}.big{font-size:2.2rem;margin:.5rem 0}\
        form.inline{display:inline}input,button,select{font:inherit;padding:.35rem .6rem}\
        button{background:#2f6fde;color:#fff;border:0;border-radius:.3rem;cursor:pointer}button.secondary{background:#6c757d}\
        .card{background:#fff;padding:1rem 1.5rem;border-radius:.5rem;box-shadow:0 1px 2px #0001;margin-bottom:1rem}\
        .muted{color:#6c7486}.error{color:#b02a37}.filters a{margin-right:.8rem}code{font-size:.85em}\
        .cashier{max-width:24rem;margin:3rem auto;text-align:center}.qr svg{width:220px;height:220px}\
        .tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr));gap:1rem;margin-bottom:1rem}\
        .tile{margin:0}.tile .big{font-size:1.6rem}[aria-current=page]{font-weight:600;color:#1d2330}\
        header{flex-wrap:wrap}#filters select,#filters input{margin:.2rem .3rem .2rem 0}.when{white-space:nowrap}\
        time[title]{text-decoration:underline dotted #c5cad3}\
        .checkout #items td{border:0;padding:.2rem 0}.checkout #items td.amount{text-align:right}.checkout #methods form{margin:.6rem 0}\
        .checkout button.method,.checkout button.applepay{width:100%;padding:.75rem;font-size:1.05rem}\
        .checkout button.wechat{background:#07c160}.checkout button.alipay{background:#1677ff}.checkout button.applepay{background:#000}\
        [hidden]{display:none!important}
        """

    static let stylesheetHash = hash(stylesheet)

    static func hash(_ text: String) -> String {
        "'sha256-" + Base64.encode(DigestAlgorithm.sha256.hash(text)) + "'"
    }

    /// The policy this page is sent with.
    public var contentSecurityPolicy: String {
        var directives = [
            "default-src 'none'", "style-src \(Self.stylesheetHash)", "img-src 'self' data:",
            "form-action 'self'\(formTargets.map { " " + $0 }.joined())", "frame-ancestors 'none'", "base-uri 'none'",
        ]
        if let script { directives.append("script-src \(Self.hash(script))") }
        if connectsToSelf { directives.append("connect-src 'self'") }
        return directives.joined(separator: "; ")
    }

    public var html: String {
        """
        <!doctype html><html lang="\(HTMLText.escape(language))"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">\
        <title>\(HTMLText.escape(title))</title><style>\(Self.stylesheet)</style></head><body>\(body)\
        \(script.map { "<script>\($0)</script>" } ?? "")</body></html>
        """
    }

    public func response() -> HTTPServerResponse {
        var all = headers
        all.set("Content-Type", "text/html; charset=utf-8")
        all.set("Content-Security-Policy", contentSecurityPolicy)
        all.set("X-Content-Type-Options", "nosniff")
        all.set("Referrer-Policy", "no-referrer")
        all.set("Cache-Control", "no-store")
        return HTTPServerResponse(status: status, headers: all, body: Array(html.utf8))
    }
}
