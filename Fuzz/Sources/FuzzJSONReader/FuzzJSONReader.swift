import Cashier
import Foundation

/// JSONReader against JSONSerialization: whatever the reader accepts, JSONSerialization accepts
/// too — except numbers beyond a Double, which the reader keeps as text and JSONSerialization refuses.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONReader(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: count))
    guard let value = try? JSONReader.parse(bytes), !hasHugeNumber(value) else { return 0 }
    precondition(
        (try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed])) != nil, "accepted what JSONSerialization refuses")
    return 0
}

private func hasHugeNumber(_ value: JSONReader.Value) -> Bool {
    switch value {
    case .number(let text): return Double(text).map { !$0.isFinite } ?? true
    case .array(let elements): return elements.contains(where: hasHugeNumber)
    case .object(let members): return members.values.contains(where: hasHugeNumber)
    default: return false
    }
}
