// Placeholder until scripts/generate-rpc writes this folder; the generator removes it.
public struct ResultCode: RPCEnum {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let success: ResultCode = "SUCCESS"
    public static let knownValues: [ResultCode] = [.success]
}
