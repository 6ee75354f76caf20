import SDLScenario
import SmartDeviceLink
import Testing

@Suite("Scenario matchers")
struct MatcherTests {
    func scenario(expect params: String) throws -> Matcher {
        // The first step defines ${limit}, which a matcher may use.
        let text = #"{"app": {"appName": "A", "appID": "a"}, "steps": [{"expect": {"notification": "OnVehicleData"}, "capture": {"limit": "speed"}}, "#
            + #"{"expect": {"notification": "OnVehicleData", "params": "# + params + "}}]}"
        let parsed = try ScenarioParser.parse(Array(text.utf8), source: "inline")
        guard case .expect(let expectations, _) = parsed.steps[1].kind, let matcher = expectations[0].parameters else {
            Issue.record("no matcher parsed")
            return .present
        }
        return matcher
    }

    @Test("each operator accepts and rejects what it should", arguments: [
        (#"{"speed": 50}"#, #"{"speed": 50.0, "rpm": 1}"#, true),            // numbers by value; other keys allowed
        (#"{"speed": 50}"#, #"{"speed": 51}"#, false),
        (#"{"speed": {"$range": [10, 60]}}"#, #"{"speed": 60}"#, true),
        (#"{"speed": {"$range": [null, 10]}}"#, #"{"speed": 11}"#, false),
        (#"{"prndl": {"$oneOf": ["PARK", "DRIVE"]}}"#, #"{"prndl": "DRIVE"}"#, true),
        (#"{"prndl": {"$oneOf": ["PARK"]}}"#, #"{"prndl": "DRIVE"}"#, false),
        (#"{"vin": {"$regex": "^1F"}}"#, #"{"vin": "1FAHP"}"#, true),
        (#"{"vin": {"$regex": "^1F"}}"#, #"{"vin": "WBA"}"#, false),
        (#"{"rpm": {"$absent": true}}"#, #"{"speed": 1}"#, true),
        (#"{"rpm": {"$absent": true}}"#, #"{"rpm": 1}"#, false),
        (#"{"rpm": {"$any": true}}"#, #"{"rpm": null}"#, true),
        (#"{"gps": {"latitudeDegrees": 1}}"#, #"{"gps": {"latitudeDegrees": 1, "longitudeDegrees": 2}}"#, true),
        (#"{"gps": {"$eq": {"latitudeDegrees": 1}}}"#, #"{"gps": {"latitudeDegrees": 1, "longitudeDegrees": 2}}"#, false),
        (#"{"tirePressure": [1, 2]}"#, #"{"tirePressure": [1, 2, 3]}"#, false),
        (#"{"fuelRange": {"$contains": {"type": "GASOLINE"}}}"#, #"{"fuelRange": [{"type": "DIESEL"}, {"type": "GASOLINE", "range": 9}]}"#, true),
        (#"{"fuelRange": {"$contains": {"type": "GASOLINE"}}}"#, #"{"fuelRange": [{"type": "DIESEL"}]}"#, false),
        (#"{"fuelRange": {"$contains": {"type": "GASOLINE"}}}"#, #"{"fuelRange": {"type": "GASOLINE"}}"#, false),
    ])
    func operators(matcher: String, value: String, matches: Bool) throws {
        let m = try scenario(expect: matcher)
        let mismatch = m.mismatch(try JSONValue.parse(value), at: "OnVehicleData", variables: [:])
        #expect((mismatch == nil) == matches, "\(mismatch ?? "matched")")
    }

    @Test("a variable matches its captured value and says so when it was never captured")
    func variables() throws {
        let m = try scenario(expect: #"{"speed": "${limit}"}"#)
        #expect(m.mismatch(["speed": 80], at: "x", variables: ["limit": 80]) == nil)
        #expect(m.mismatch(["speed": 81], at: "x", variables: ["limit": 80]) == "x.speed: expected 80, found 81")
        #expect(m.mismatch(["speed": 80], at: "x", variables: [:]) == "x.speed: variable ${limit} was never captured")
    }

    @Test("a mismatch names the path and both values")
    func messages() throws {
        let m = try scenario(expect: #"{"gps": {"latitudeDegrees": {"$range": [0, 10]}}}"#)
        #expect(m.mismatch(["gps": ["latitudeDegrees": 42]], at: "OnVehicleData", variables: [:])
                == "OnVehicleData.gps.latitudeDegrees: 42 is above 10")
    }
}

@Suite("Scenario menu items")
struct MenuItemParsingTests {
    @Test("a menu item with an id is refused: the menu manager assigns ids, and the message says how to refer to cells")
    func idRefused() {
        let text = #"{"app": {"appName": "A", "appID": "a"}, "steps": [{"menu": [{"title": "Play", "id": 5}]}]}"#
        #expect {
            _ = try ScenarioParser.parse(Array(text.utf8), source: "inline")
        } throws: { error in
            "\(error)".contains("$.steps[0].menu[0].id") && "\(error)".contains("${menu.<title>}")
        }
    }
}
