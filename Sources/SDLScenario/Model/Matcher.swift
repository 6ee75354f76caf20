public import SmartDeviceLink

/// A check on a JSON value received from the head unit.
///
/// In a scenario file: a plain value must be equal (numbers by value, so `5` matches `5.0`);
/// a plain object matches when each of its keys matches (other keys may be present: a
/// subset); an array must have the same length with each element matching. Operators
/// are objects with one `$` key: `{"$eq": v}` (exact, whole value), `{"$regex": "^Hi"}`,
/// `{"$range": [min, max]}` (`null` for an open end), `{"$oneOf": [a, b]}`, `{"$absent": true}`,
/// `{"$any": true}` (present, any value), `{"$contains": m}` (an array with an element that
/// matches `m`). A string `"${name}"` stands for a captured variable.
public indirect enum Matcher: Sendable {
    /// Equal to this value (numbers by value).
    case equals(JSONValue)
    /// An object whose listed keys match (others may be there).
    case subset([String: Matcher])
    /// An array of the same length, element by element.
    case elements([Matcher])
    /// A string matching this regular expression.
    case regex(String)
    /// A number within the bounds, both included (nil: open).
    case range(min: Double?, max: Double?)
    /// Equal to one of these.
    case oneOf([JSONValue])
    /// The key is not there.
    case absent
    /// The key is there, with any value.
    case present
    /// Equal to the variable's value when matched.
    case variable(String)
    /// An array with at least one element that matches.
    case contains(Matcher)

    /// The operators a scenario may use.
    public static let operators = ["$eq", "$regex", "$range", "$oneOf", "$absent", "$any", "$contains"]

    /// Checks `value` (nil when the key is missing); returns why it does not match, or nil.
    public func mismatch(_ value: JSONValue?, at path: String, variables: [String: JSONValue]) -> String? {
        switch self {
        case .absent:
            return value == nil ? nil : "\(path): expected absent, found \(value!.description)"
        case .present:
            return value == nil ? "\(path): expected a value, found none" : nil
        case .variable(let name):
            guard let bound = variables[name] else { return "\(path): variable ${\(name)} was never captured" }
            return Matcher.equals(bound).mismatch(value, at: path, variables: variables)
        default:
            break
        }
        guard let value else { return "\(path): missing (expected \(expectation))" }
        switch self {
        case .equals(let expected):
            return expected.numericallyEquals(value) ? nil : "\(path): expected \(expected.description), found \(value.description)"
        case .subset(let keys):
            guard case .object(let object) = value else { return "\(path): expected an object, found \(value.description)" }
            for key in keys.keys.sorted() {
                if let failure = keys[key]!.mismatch(object[key], at: "\(path).\(key)", variables: variables) { return failure }
            }
            return nil
        case .elements(let matchers):
            guard case .array(let items) = value else { return "\(path): expected an array, found \(value.description)" }
            guard items.count == matchers.count else {
                return "\(path): expected \(matchers.count) elements, found \(items.count): \(value.description)"
            }
            for (index, matcher) in matchers.enumerated() {
                if let failure = matcher.mismatch(items[index], at: "\(path)[\(index)]", variables: variables) { return failure }
            }
            return nil
        case .regex(let pattern):
            guard case .string(let text) = value else { return "\(path): expected a string matching /\(pattern)/, found \(value.description)" }
            guard let regex = try? Regex(pattern), text.contains(regex) else {
                return "\(path): \"\(text)\" does not match /\(pattern)/"
            }
            return nil
        case .range(let low, let high):
            guard let number = value.doubleValue else { return "\(path): expected a number, found \(value.description)" }
            if let low, number < low { return "\(path): \(value.description) is below \(low.clean)" }
            if let high, number > high { return "\(path): \(value.description) is above \(high.clean)" }
            return nil
        case .oneOf(let options):
            return options.contains { $0.numericallyEquals(value) } ? nil
                : "\(path): expected one of \(JSONValue.array(options).description), found \(value.description)"
        case .contains(let element):
            guard case .array(let items) = value else { return "\(path): expected an array, found \(value.description)" }
            return items.contains { element.mismatch($0, at: path, variables: variables) == nil } ? nil
                : "\(path): none of its \(items.count) elements is \(element.expectation)"
        case .absent, .present, .variable:
            return nil
        }
    }

    /// A short text of what is expected, for messages.
    public var expectation: String {
        switch self {
        case .equals(let value): return value.description
        case .subset(let keys): return "an object with " + keys.keys.sorted().joined(separator: ", ")
        case .elements(let items): return "\(items.count) elements"
        case .regex(let pattern): return "/\(pattern)/"
        case .range(let low, let high): return "[\(low?.clean ?? "…"), \(high?.clean ?? "…")]"
        case .oneOf(let options): return "one of \(JSONValue.array(options).description)"
        case .absent: return "absent"
        case .present: return "any value"
        case .variable(let name): return "${\(name)}"
        case .contains(let element): return "an array with \(element.expectation)"
        }
    }
}

extension Double {
    var clean: String { rounded() == self && abs(self) < 1e15 ? String(Int64(self)) : String(self) }
}
