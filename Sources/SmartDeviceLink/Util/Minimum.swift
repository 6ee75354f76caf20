/// The smaller of two values either of which may be absent: the one that is there, or nil
/// for neither. Deadlines combine this way: a request's, a heartbeat's, an expiry's, each
/// optional.
func minimum<Value: Comparable>(_ a: Value?, _ b: Value?) -> Value? {
    guard let a else { return b }
    guard let b else { return a }
    return min(a, b)
}
