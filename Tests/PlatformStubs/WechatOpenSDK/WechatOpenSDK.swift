// A TEST-ONLY stand-in for Tencent's WechatOpenSDK: the classes and calls CashierClient's WeChat glue
// uses, as the SDK's headers import into Swift (WXApi.h, WXApiObject.h), so the glue type-checks on
// Linux. It opens no app; `WXApi.onSend` lets a test play WeChat. Package.swift declares it on Linux only.
public import Foundation

open class BaseReq: NSObject, @unchecked Sendable {
    open var type: Int32 = 0
    open var openID: String = ""
    override public init() {}
}

open class BaseResp: NSObject, @unchecked Sendable {
    open var errCode: Int32 = 0
    open var errStr: String = ""
    open var type: Int32 = 0
    override public init() {}
}

open class PayReq: BaseReq, @unchecked Sendable {
    open var partnerId: String = ""
    open var prepayId: String = ""
    open var nonceStr: String = ""
    open var timeStamp: UInt32 = 0
    open var package: String = ""
    open var sign: String = ""
}

open class PayResp: BaseResp, @unchecked Sendable {
    open var returnKey: String = ""
}

/// Opens one of WeChat's business pages (business type 12: the app's 委托代扣 signing, with
/// `pre_entrustweb_id` in `queryInfoDic`).
open class WXOpenBusinessWebViewReq: BaseReq, @unchecked Sendable {
    open var businessType: UInt32 = 0
    open var queryInfoDic: [AnyHashable: Any]?
}

open class WXOpenBusinessWebViewResp: BaseResp, @unchecked Sendable {
    open var result: String = ""
    open var businessType: UInt32 = 0
}

/// Apple's headers make both methods optional; here they are required, so a misspelt one fails to compile.
public protocol WXApiDelegate: NSObjectProtocol {
    func onReq(_ req: BaseReq)
    func onResp(_ resp: BaseResp)
}

open class WXApi: NSObject {
    /// TEST HOOK (not in the SDK): what "WeChat" does with a request; `false` = it could not be opened.
    nonisolated(unsafe) public static var onSend: (@Sendable (BaseReq) -> Bool)?

    open class func registerApp(_ appid: String, universalLink: String) -> Bool { true }
    open class func isWXAppInstalled() -> Bool { onSend != nil }
    open class func send(_ req: BaseReq, completion: ((Bool) -> Void)? = nil) { completion?(onSend?(req) ?? false) }
    open class func handleOpen(_ url: URL, delegate: (any WXApiDelegate)?) -> Bool {
        guard url.scheme?.hasPrefix("wx") == true, let delegate else { return false }
        let resp = PayResp()
        let fields = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        resp.errCode = Int32(fields.first { $0.name == "ret" }?.value ?? "") ?? -1
        delegate.onResp(resp)
        return true
    }
}
