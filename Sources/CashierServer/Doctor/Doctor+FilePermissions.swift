import Cashier
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Doctor {
    /// Files holding keys and secrets — and the SQLite database, which holds orders' client
    /// secrets — must be their owner's alone: no group or other bit.
    struct FilePermissions {
        let root: ConfigurationFile.Object
        let reader: ConfigurationFile.Reader
        /// The database's location (a SQLite path is checked too).
        let database: String

        /// Keys of the file whose value is a file holding a secret: every `<secret>_file`, and the
        /// two private keys given as plain file keys (read by libcurl).
        static let secretFileKeys: Set<String> = [
            "secret_key_file", "api_key_file", "private_key_file", "api_v3_key_file", "secret_file", "processing_key_file",
            "webhook_secret_file", "hmac_key_file", "report_api_key_file", "token_file", "alipay_app_auth_token_file",
            "api_certificate_key_file", "identity_key_file",
        ]

        func findings() -> [DoctorFinding] {
            var files: [(check: String, path: String)] = []
            collect(root, path: "", into: &files)
            if !database.hasPrefix("postgres://"), !database.hasPrefix("postgresql://"), FileManager.default.fileExists(atPath: database) {
                files.append(("database", database))
            }
            var findings: [DoctorFinding] = []
            var checked = 0
            for (check, path) in files {
                var info = stat()
                guard stat(path, &info) == 0 else { continue }  // unreadable or missing: the configuration's finding says so
                checked += 1
                let mode = info.st_mode & 0o777
                if mode & 0o077 != 0 {
                    findings.append(
                        DoctorFinding(
                            "files.permissions", .problem,
                            "\(path) (\(check)) can be read by \(mode & 0o007 != 0 ? "every user" : "its group") (mode \(String(mode, radix: 8)))",
                            fix: "chmod 600 \(path), owned by the user cashier serve runs as (systemd: LoadCredential= keeps it root's)"))
                }
            }
            if findings.isEmpty {
                findings.append(DoctorFinding("files.permissions", .ok, "\(checked) key and database file(s) are their owner's alone"))
            }
            return findings
        }

        private func collect(_ object: ConfigurationFile.Object, path: String, into files: inout [(check: String, path: String)]) {
            for (key, value) in object.sorted(by: { $0.key < $1.key }) {
                if let nested = value.object {
                    collect(nested, path: path + key + ".", into: &files)
                } else if let list = value.objects {
                    for (index, element) in list.enumerated() { collect(element, path: "\(path)\(key)[\(index)].", into: &files) }
                } else if Self.secretFileKeys.contains(key), let name = value.string {
                    let url = name.hasPrefix("/") ? URL(fileURLWithPath: name) : reader.folder.appendingPathComponent(name)
                    files.append((path + key, url.path))
                }
            }
        }
    }
}
