extension Array where Element: Comparable {
    /// The middle value once sorted (the upper middle of an even count): what each row
    /// reports of its rounds.
    var median: Element { sorted()[count / 2] }
}
