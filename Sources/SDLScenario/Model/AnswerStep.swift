public import SmartDeviceLink

/// `{"answer": "GetAppServiceData", "params": {...}, "resultCode": "SUCCESS"}`: the app answers a
/// request the head unit sent it, as an app-service provider answers a consumer's
/// GetAppServiceData or PerformAppServiceInteraction that core passed on.
public struct AnswerStep: Sendable {
    /// The request to wait for (the first of its kind this app has not answered yet).
    public var function: String
    /// What the request must hold (a matcher on its parameters); nil: any.
    public var request: Matcher?
    /// The answer's result code; `success` follows from it as core reads it.
    public var resultCode: String
    /// The answer's other parameters.
    public var parameters: JSONObject

    /// The result codes that make `success` true (SUCCESS, WARNINGS, ...).
    static let successCodes: Set = ["SUCCESS", "WARNINGS", "WRONG_LANGUAGE", "RETRY", "SAVED", "TRUNCATED_DATA"]

    /// The response's parameters as they go out.
    public var response: JSONObject {
        parameters.merging(["resultCode": .string(resultCode), "success": .bool(Self.successCodes.contains(resultCode))]) { _, new in new }
    }
}

extension ScenarioReader {
    /// Reads an `answer` step: a request the head unit may send, a result code of the spec, and
    /// the response's parameters checked against the spec as a send step's are.
    mutating func answerStep(_ object: JSONObject, _ path: String) -> AnswerStep? {
        guard let function = string(object["answer"], "\(path).answer") else { return nil }
        if let problem = spec.functionProblem(function, .request) {
            issue("\(path).answer", problem)
            return nil
        }
        let resultCode = string(object["resultCode"], "\(path).resultCode") ?? "SUCCESS"
        let codeProblem = spec.enumProblem(enumName: "Result", value: resultCode)
        if let codeProblem { issue("\(path).resultCode", codeProblem) }
        let parameters = objectValue(object["params"], "\(path).params") ?? [:]
        let response = AnswerStep(function: function, request: nil, resultCode: codeProblem == nil ? resultCode : "SUCCESS", parameters: parameters).response
        for problem in spec.parameterProblems(function: function, type: .response, parameters: response) {
            issue("\(path).params\(problem.path.isEmpty ? "" : "." + problem.path)", problem.message)
        }
        var request: Matcher?
        if let value = object["request"] {
            let matcher = matcher(value, "\(path).request")
            checkMatcherKeys(matcher, function: function, type: .request, path: "\(path).request")
            request = matcher
        }
        return AnswerStep(function: function, request: request, resultCode: resultCode, parameters: parameters)
    }
}
