/// Finding bytes in bytes over buffer pointers: the generic `firstRange(of:)` on `[UInt8]` goes
/// through unspecialised collection code and cost a tenth of a notification's time (perf, see
/// docs/performance.md).
public enum ByteSearch {
    /// Whether `needle` occurs in `haystack` (an empty needle always does).
    public static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pin in
                let first = pin[0]
                var start = 0
                let last = hay.count - pin.count
                while start <= last {
                    if hay[start] == first {
                        var offset = 1
                        while offset < pin.count && hay[start + offset] == pin[offset] { offset += 1 }
                        if offset == pin.count { return true }
                    }
                    start += 1
                }
                return false
            }
        }
    }
}
