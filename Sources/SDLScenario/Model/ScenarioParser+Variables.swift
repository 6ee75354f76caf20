import Foundation
import SmartDeviceLink

/// Every `${name}` a scenario uses must be defined: by a step's `capture`, a `menu` cell
/// (`menu.<title>`), `sdl-run --var name=value`, or the environment (`${env.NAME}`). An
/// undefined one was sent literally before; now it is an error that names the closest
/// defined variable.
extension ScenarioReader {
    mutating func checkVariables(_ steps: [JSONValue], _ path: String) {
        var defined = Set(predefined.keys)
        for step in steps { collectDefinitions(step, into: &defined) }
        for (index, step) in steps.enumerated() { checkReferences(step, "\(path)[\(index)]", defined: defined) }
    }

    private func collectDefinitions(_ value: JSONValue, into defined: inout Set<String>) {
        switch value {
        case .object(let object):
            if case .object(let captures)? = object["capture"] { defined.formUnion(captures.keys) }
            if case .array(let cells)? = object["menu"] { collectMenuTitles(cells, into: &defined) }
            for item in object.values { collectDefinitions(item, into: &defined) }
        case .array(let items):
            for item in items { collectDefinitions(item, into: &defined) }
        default:
            break
        }
    }

    private func collectMenuTitles(_ cells: [JSONValue], into defined: inout Set<String>) {
        for case .object(let cell) in cells {
            if case .string(let title)? = cell["title"] { defined.insert("menu.\(title)") }
            if case .array(let items)? = cell["items"] { collectMenuTitles(items, into: &defined) }
        }
    }

    private mutating func checkReferences(_ value: JSONValue, _ path: String, defined: Set<String>) {
        switch value {
        case .string(let text) where text.hasPrefix("${") && text.hasSuffix("}"):
            let name = String(text.dropFirst(2).dropLast())
            guard !defined.contains(name) else { return }
            if name.hasPrefix("env.") {
                let variable = String(name.dropFirst(4))
                guard let value = ProcessInfo.processInfo.environment[variable] else {
                    issue(path, "${\(name)} reads the environment variable \(variable), which is not set; set it, or pass --var \(name)=VALUE")
                    return
                }
                predefined[name] = .string(value)
                return
            }
            let hint = defined.isEmpty ? "; define it with \"capture\" in an earlier step" : suggestion(name, defined.sorted())
            issue(path, "the variable ${\(name)} is never defined" + hint)
        case .object(let object):
            for key in object.keys.sorted() where key != "capture" {
                checkReferences(object[key] ?? .null, "\(path).\(key)", defined: defined)
            }
        case .array(let items):
            for (index, item) in items.enumerated() { checkReferences(item, "\(path)[\(index)]", defined: defined) }
        default:
            break
        }
    }
}
