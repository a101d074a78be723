/// The version of promise-run and its PromiseEngine library.
public enum PromiseRunVersion {
    public static let current = "0.1.0"
}
