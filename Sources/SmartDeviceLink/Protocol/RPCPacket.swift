/// An RPC as carried on the RPC and Hybrid services in protocol v2+: the 12-byte binary
/// header, the JSON parameters and optional bulk data.
package struct RPCPacket: Sendable, Hashable {
    package var messageType: RPCMessageType
    /// The 28-bit function id.
    package var functionID: UInt32
    /// Signed on the wire; notifications carry 0 (core sends 0xFFFFFFFF, i.e. -1).
    package var correlationID: Int32
    /// The UTF-8 JSON of the parameter object.
    package var json: [UInt8]
    /// A slice of the payload it was decoded from: a PutFile chunk is most of its payload, and
    /// copying it out was the largest of the emulator's copies per chunk (measured with perf).
    package var bulkData: ArraySlice<UInt8>

    package init(messageType: RPCMessageType, functionID: UInt32, correlationID: Int32, json: [UInt8], bulkData: [UInt8] = []) {
        self.init(messageType: messageType, functionID: functionID, correlationID: correlationID, json: json, bulkData: bulkData[...])
    }

    package init(messageType: RPCMessageType, functionID: UInt32, correlationID: Int32, json: [UInt8], bulkData: ArraySlice<UInt8>) {
        self.messageType = messageType
        self.functionID = functionID
        self.correlationID = correlationID
        self.json = json
        self.bulkData = bulkData
    }

    /// Messages with binary data travel on the Hybrid service, others on RPC.
    package var serviceType: ServiceType { bulkData.isEmpty ? .rpc : .hybrid }

    /// Header, JSON, bulk data.
    package var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(encodedSize)
        encode(into: &out)
        return out
    }

    /// The size of ``encoded``.
    package var encodedSize: Int { 12 + json.count + bulkData.count }

    /// Appends header, JSON and bulk data to `out`.
    package func encode(into out: inout [UInt8]) {
        out.appendBigEndian(UInt32(messageType.rawValue) << 28 | (functionID & 0x0FFF_FFFF))
        out.appendBigEndian(UInt32(bitPattern: correlationID))
        out.appendBigEndian(UInt32(json.count))
        out.append(contentsOf: json)
        out.append(contentsOf: bulkData)
    }

    /// Why a service payload is not an RPC packet.
    package struct DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        package var reason: String
        package var description: String { "malformed RPC payload: \(reason)" }
    }

    /// Parses a reassembled RPC or Hybrid service payload.
    package init(decoding payload: [UInt8]) throws(DecodingError) {
        guard payload.count >= 12 else { throw DecodingError(reason: "\(payload.count) bytes, shorter than the 12-byte binary header") }
        let word = payload.bigEndianUInt32(at: 0)
        guard let type = RPCMessageType(rawValue: UInt8(word >> 28)) else {
            throw DecodingError(reason: "RPC type \(word >> 28) is not request, response or notification")
        }
        let jsonSize = Int(payload.bigEndianUInt32(at: 8))
        guard jsonSize <= payload.count - 12 else {
            throw DecodingError(reason: "JSON size \(jsonSize) exceeds the \(payload.count - 12) bytes after the header")
        }
        self.messageType = type
        self.functionID = word & 0x0FFF_FFFF
        self.correlationID = Int32(bitPattern: payload.bigEndianUInt32(at: 4))
        self.json = Array(payload[12..<(12 + jsonSize)])
        self.bulkData = payload[(12 + jsonSize)...]
    }
}
