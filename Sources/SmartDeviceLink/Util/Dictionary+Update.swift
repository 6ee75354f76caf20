extension Dictionary {
    /// Runs `change` on the value stored for `key`, in place; nil when there is none.
    ///
    /// `dictionary[key]?.change()` goes through the subscript's `_modify` accessor, whose
    /// coroutine frames each hold an optional value: for a value of more than a few words
    /// they are allocated on the heap (perf counted six mallocs per change of a protocol
    /// session, seven per emulator connection). Changing the value through its index
    /// allocates nothing.
    @inlinable
    package mutating func update<Result, Failure: Error>(
        _ key: Key, _ change: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        guard let index = index(forKey: key) else { return nil }
        return try change(&values[index])
    }
}
