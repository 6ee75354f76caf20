/// The OnTouchEvent sequence a finger makes for a gesture, with timestamps spaced as a hand
/// moves: what a head unit sends for a tap, a double tap, a pan or a pinch. The emulator's
/// and sdl_core's HMI's `touch` driver steps both send it.
public enum TouchSequence {
    /// One OnTouchEvent: its type and the fingers it reports.
    public struct Step: Sendable, Hashable {
        /// BEGIN, MOVE, END or CANCEL.
        public var type: TouchType
        /// The fingers: their ids, times and coordinates.
        public var events: [TouchEvent]

        /// The notification's parameters (`type`, `event`).
        public var parameters: JSONObject { ["type": .string(type.rawValue), "event": .array(events.map(\.json))] }
    }

    /// The steps of `gesture` (tap, doubleTap, pan, pinch) at `point`; a pan ends at `end`
    /// (200 px to the right when nil), a pinch spreads the fingers by `scale`. Timestamps start
    /// after `startTime` (ms). Nil for an unknown gesture.
    public static func steps(_ gesture: String, at point: (x: Int, y: Int), to end: (x: Int, y: Int)? = nil, scale: Double = 2,
                             startTime: Int) -> [Step]? {
        var time = startTime
        var steps: [Step] = []
        func add(_ type: TouchType, _ fingers: [(id: Int, x: Int, y: Int)], after ms: Int) {
            time += ms
            steps.append(Step(type: type, events: fingers.map { TouchEvent(id: $0.id, ts: [time], c: [TouchCoord(x: $0.x, y: $0.y)]) }))
        }
        switch gesture {
        case "tap", "doubleTap":
            for index in 0..<(gesture == "tap" ? 1 : 2) {
                add(.begin, [(0, point.x, point.y)], after: index == 0 ? 0 : 150)
                add(.end, [(0, point.x, point.y)], after: 60)
            }
        case "pan":
            let to = end ?? (point.x + 200, point.y)
            add(.begin, [(0, point.x, point.y)], after: 0)
            for step in 1...8 {
                add(.move, [(0, point.x + (to.x - point.x) * step / 8, point.y + (to.y - point.y) * step / 8)], after: 60)
            }
            add(.end, [(0, to.x, to.y)], after: 30)
        case "pinch":
            let start = 100.0
            func fingers(_ distance: Double) -> [(id: Int, x: Int, y: Int)] {
                [(0, point.x - Int(distance / 2), point.y), (1, point.x + Int(distance / 2), point.y)]
            }
            add(.begin, [fingers(start)[0]], after: 0)
            add(.begin, [fingers(start)[1]], after: 20)
            for step in 1...5 { add(.move, fingers(start * (1 + (scale - 1) * Double(step) / 5)), after: 60) }
            let last = fingers(start * scale)
            add(.end, [last[0]], after: 30)
            add(.end, [last[1]], after: 20)
        default:
            return nil
        }
        return steps
    }

    /// The gestures a driver step may name.
    public static let gestures = ["tap", "doubleTap", "pan", "pinch"]
}
