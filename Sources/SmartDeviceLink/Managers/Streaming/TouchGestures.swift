/// A point on the head unit's video screen, in its pixels (OnTouchEvent's `c`).
public struct TouchPoint: Sendable, Hashable, CustomStringConvertible {
    /// Pixels from the left edge.
    public var x: Double
    /// Pixels from the top edge.
    public var y: Double

    /// The point at `x`, `y`.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    func distance(to other: TouchPoint) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }

    func midpoint(with other: TouchPoint) -> TouchPoint {
        TouchPoint(x: (x + other.x) / 2, y: (y + other.y) / 2)
    }

    public var description: String { "(\(Int(x.rounded())), \(Int(y.rounded())))" }
}

/// What the user did on the video screen, recognised from OnTouchEvent sequences.
public enum TouchGesture: Sendable, Hashable {
    /// One finger down and up, with no second tap soon after.
    case tap(TouchPoint)
    /// Two taps close in time and place (at their midpoint).
    case doubleTap(TouchPoint)
    /// One finger moved further than ``TouchThresholds/panDistance`` from where it went down.
    case panStarted(TouchPoint)
    /// The finger of a pan moved (at most one a ``TouchThresholds/movementTime``).
    case panMoved(from: TouchPoint, to: TouchPoint)
    /// The finger of a pan lifted here.
    case panEnded(TouchPoint)
    /// A second finger went down: pinch around the fingers' midpoint.
    case pinchStarted(center: TouchPoint)
    /// The fingers moved; `scale` is the new distance between them over the last one.
    case pinchMoved(center: TouchPoint, scale: Double)
    /// A finger of the pinch lifted.
    case pinchEnded(center: TouchPoint)
    /// The head unit cancelled the touch (CANCEL): a pan or pinch under way ends unfinished.
    case cancelled

    /// The gesture's name as scenarios write it (`{"expect": {"gesture": "pinch"}}` matches
    /// any pinch event).
    public var name: String {
        switch self {
        case .tap: return "tap"
        case .doubleTap: return "doubleTap"
        case .panStarted: return "panStarted"
        case .panMoved: return "panMoved"
        case .panEnded: return "panEnded"
        case .pinchStarted: return "pinchStarted"
        case .pinchMoved: return "pinchMoved"
        case .pinchEnded: return "pinchEnded"
        case .cancelled: return "cancelled"
        }
    }

    /// The gesture as JSON, for reports and scenario matching.
    public var json: JSONValue {
        func point(_ p: TouchPoint) -> JSONValue { ["x": .double(p.x), "y": .double(p.y)] }
        var object: JSONObject = ["gesture": .string(name)]
        switch self {
        case .tap(let p), .doubleTap(let p), .panStarted(let p), .panEnded(let p): object["point"] = point(p)
        case .panMoved(let from, let to): object["from"] = point(from); object["to"] = point(to)
        case .pinchStarted(let c), .pinchEnded(let c): object["center"] = point(c)
        case .pinchMoved(let c, let scale): object["center"] = point(c); object["scale"] = .double(scale)
        case .cancelled: break
        }
        return .object(object)
    }
}

/// When touches become which gesture. The defaults are sdl_ios's SDLTouchManager defaults.
public struct TouchThresholds: Sendable, Hashable {
    /// Longest time from the first tap's end to the second's for a double tap, and from
    /// down to up for a tap.
    public var tapTime: Duration = .milliseconds(400)
    /// Farthest apart two taps of a double tap may be, and how far a tap may wander.
    public var tapDistance: Double = 50
    /// How far a finger must move before a pan starts.
    public var panDistance: Double = 8
    /// Pan and pinch moves closer together than this are merged into one.
    public var movementTime: Duration = .milliseconds(50)

    /// sdl_ios's default thresholds.
    public init() {}
}

/// Turns OnTouchEvent sequences into gestures. Sans-IO: time is the events' own `ts`
/// (milliseconds), and ``flush(at:)`` confirms a lone tap once no second one can come.
public struct TouchGestureRecognizer: Sendable {
    private enum State: Sendable {
        case idle
        case oneFinger(id: Int, down: TouchPoint, downAt: Int, last: TouchPoint, lastSent: Int?, panning: Bool)
        case pinch(fingers: [Int: TouchPoint], lastDistance: Double, lastSent: Int)
        /// A pinch ended with a finger still down: wait for it to lift.
        case lifting
    }

    /// The distances and times that tell one gesture from another.
    public var thresholds: TouchThresholds
    private var state = State.idle
    private var pendingTap: (point: TouchPoint, at: Int)?

    /// A recognizer with no finger down.
    public init(thresholds: TouchThresholds = TouchThresholds()) {
        self.thresholds = thresholds
    }

    private var tapMs: Int { Int(thresholds.tapTime.milliseconds) }
    private var movementMs: Int { Int(thresholds.movementTime.milliseconds) }

    /// The gestures one OnTouchEvent completes. A touch without coordinates is ignored.
    public mutating func handle(_ type: TouchType, _ events: [TouchEvent]) -> [TouchGesture] {
        if type == .move, case .pinch(var fingers, let lastDistance, let lastSent) = state {
            // Both fingers of a pinch move in one notification: one step, not two half-steps.
            for event in events where fingers[event.id] != nil {
                if let c = event.c.last { fingers[event.id] = TouchPoint(x: Double(c.x), y: Double(c.y)) }
            }
            return pinchMoved(fingers, lastDistance: lastDistance, lastSent: lastSent, time: events.compactMap { $0.ts.last }.max() ?? lastSent)
        }
        var out: [TouchGesture] = []
        for event in events {
            guard let coord = event.c.last else { continue }
            let point = TouchPoint(x: Double(coord.x), y: Double(coord.y))
            let time = event.ts.last ?? 0
            out += handle(type, finger: event.id, at: point, time: time)
        }
        return out
    }

    /// A lone tap becomes a tap once `time` is past its double-tap window.
    public mutating func flush(at time: Int) -> [TouchGesture] {
        guard let tap = pendingTap, time - tap.at > tapMs else { return [] }
        pendingTap = nil
        return [.tap(tap.point)]
    }

    private mutating func handle(_ type: TouchType, finger: Int, at point: TouchPoint, time: Int) -> [TouchGesture] {
        var out = flush(at: time)
        switch (type, state) {
        case (.begin, .idle):
            state = .oneFinger(id: finger, down: point, downAt: time, last: point, lastSent: nil, panning: false)
        case (.begin, .oneFinger(let id, _, _, let last, _, let panning)) where id != finger:
            if panning { out.append(.panEnded(last)) }
            state = .pinch(fingers: [id: last, finger: point], lastDistance: last.distance(to: point), lastSent: time)
            out.append(.pinchStarted(center: last.midpoint(with: point)))
        case (.move, .oneFinger(let id, let down, let downAt, _, let lastSent, var panning)) where id == finger:
            if !panning, down.distance(to: point) > thresholds.panDistance {
                panning = true
                out.append(.panStarted(down))
            }
            var sent = lastSent
            if panning, lastSent.map({ time - $0 >= movementMs }) ?? true {
                out.append(.panMoved(from: lastPanPoint ?? down, to: point))
                lastPanPoint = point
                sent = time
            }
            state = .oneFinger(id: id, down: down, downAt: downAt, last: point, lastSent: sent, panning: panning)
        case (.end, .oneFinger(let id, let down, let downAt, _, _, let panning)) where id == finger:
            state = .idle
            if panning {
                if lastPanPoint != point { out.append(.panMoved(from: lastPanPoint ?? down, to: point)) }
                out.append(.panEnded(point))
            } else if time - downAt <= tapMs, down.distance(to: point) <= thresholds.tapDistance {
                out += tapped(at: point, time: time)
            }
            lastPanPoint = nil
        case (.end, .pinch(var fingers, _, _)) where fingers[finger] != nil:
            fingers[finger] = point
            let pair = Array(fingers.values)
            out.append(.pinchEnded(center: pair[0].midpoint(with: pair[1])))
            state = .lifting
        case (.end, .lifting):
            state = .idle
        case (.cancel, .oneFinger(_, _, _, _, _, let panning)):
            if panning { out.append(.cancelled) }
            state = .idle
            lastPanPoint = nil
        case (.cancel, .pinch):
            out.append(.cancelled)
            state = .idle
        case (.cancel, .lifting):
            state = .idle
        default:
            break  // a finger the recognizer does not follow (a third one), or an event out of order
        }
        return out
    }

    private var lastPanPoint: TouchPoint?

    private mutating func pinchMoved(_ fingers: [Int: TouchPoint], lastDistance: Double, lastSent: Int, time: Int) -> [TouchGesture] {
        let pair = Array(fingers.values)
        let distance = pair[0].distance(to: pair[1])
        guard time - lastSent >= movementMs, lastDistance > 0 else {
            state = .pinch(fingers: fingers, lastDistance: lastDistance, lastSent: lastSent)
            return []
        }
        state = .pinch(fingers: fingers, lastDistance: distance, lastSent: time)
        return [.pinchMoved(center: pair[0].midpoint(with: pair[1]), scale: distance / lastDistance)]
    }

    private mutating func tapped(at point: TouchPoint, time: Int) -> [TouchGesture] {
        if let first = pendingTap {
            pendingTap = nil
            if time - first.at <= tapMs, first.point.distance(to: point) <= thresholds.tapDistance {
                return [.doubleTap(first.point.midpoint(with: point))]
            }
            pendingTap = (point, time)
            return [.tap(first.point)]
        }
        pendingTap = (point, time)
        return []
    }
}
