"""UnionPay 全渠道 5.1.0 rules, written from the published specification alone (see
unionpay_reference.py): signing, the raw answer format, verification of signPubKeyCert, the
reconciliation file's widths. Shared by unionpay_reference.py (against the sandbox's gateway) and
unionpay_through_cashier.py (against `cashier-sandbox serve`); nothing here is shared with Swift.
"""
import base64
import datetime
import hashlib

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.x509.oid import NameOID

UNIONPAY_OWNER = "中国银联股份有限公司"
BEIJING = datetime.timezone(datetime.timedelta(hours=8))
# 全渠道商户一般交易明细流水 (ZM): field widths, one space between fields (UnionPay's demo parser).
ZM_WIDTHS = [3, 11, 11, 6, 10, 19, 12, 4, 2, 21, 2, 32, 2, 6, 10, 13, 13, 4, 15, 2, 2, 6, 2, 4, 32, 1, 21, 15, 1, 15, 32, 13, 13,
             8, 32, 13, 13, 12, 2, 1, 131]


# --- The signing rules -------------------------------------------------------------------------

def signing_string(fields):
    """Every field except `signature`, blank values left out, names sorted, raw values, joined k=v&k=v."""
    return "&".join("%s=%s" % (k, fields[k]) for k in sorted(fields) if k != "signature" and fields[k] != "")


def sign(fields, key, cert):
    """5.1.0: certId = the signing certificate's serial in decimal; SHA256withRSA over the
    lower-case hex SHA-256 of the signing string."""
    signed = {k: v for k, v in fields.items() if v != "" and k != "signature"}
    signed.update(version="5.1.0", signMethod="01", certId=str(cert.serial_number))
    digest_hex = hashlib.sha256(signing_string(signed).encode("utf-8")).hexdigest()
    signed["signature"] = base64.b64encode(key.sign(digest_hex.encode("ascii"), padding.PKCS1v15(), hashes.SHA256())).decode()
    return signed


def parse_raw(text):
    """The synchronous answer: k=v&..., NOT URL-decoded; '{...}' and '[...]' protect '&'."""
    fields, key, current, is_key, closing = {}, None, [], True, None
    for ch in text:
        if closing is not None:
            current.append(ch)
            if ch == closing:
                closing = None
        elif ch in "{[":
            closing = "}" if ch == "{" else "]"
            current.append(ch)
        elif ch == "=" and is_key:
            key, current, is_key = "".join(current), [], False
        elif ch == "&":
            assert not is_key, "a segment without '='"
            assert key not in fields, "a repeated field"
            fields[key], current, is_key = "".join(current), [], True
        else:
            current.append(ch)
    assert closing is None, "an unclosed bracket"
    if not is_key:
        assert key not in fields, "a repeated field"
        fields[key] = "".join(current)
    else:
        assert not current, "a segment without '='"
    return fields


def check_chain(cert, middle, root, now):
    """Dates, then cert <- middle <- root, each signature checked with the issuer's key."""
    for c in (cert, middle, root):
        assert c.not_valid_before_utc <= now <= c.not_valid_after_utc, "a certificate is not valid now"
    for child, issuer in ((cert, middle), (middle, root), (root, root)):
        assert child.issuer == issuer.subject, "the chain's names do not link"
        issuer.public_key().verify(child.signature, child.tbs_certificate_bytes, padding.PKCS1v15(), child.signature_hash_algorithm)


def owner(cert):
    cn = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value
    parts = cn.split("@")
    return parts[2] if len(parts) > 2 else None


def verify(fields, root, middle, now=None):
    """5.1.0: the message's signPubKeyCert must be valid, chain to the configured middle and root,
    name UnionPay as owner; its key verifies SHA256withRSA over the hex SHA-256 of every other
    field (signPubKeyCert included). Returns True/False; never raises for a bad message."""
    try:
        assert fields.get("version") == "5.1.0" and fields.get("signMethod") == "01"
        cert = x509.load_pem_x509_certificate(fields["signPubKeyCert"].encode())
        check_chain(cert, middle, root, now or datetime.datetime.now(datetime.timezone.utc))
        assert owner(cert) == UNIONPAY_OWNER, "not UnionPay's certificate"
        digest_hex = hashlib.sha256(signing_string(fields).encode("utf-8")).hexdigest()
        cert.public_key().verify(base64.b64decode(fields["signature"]), digest_hex.encode("ascii"), padding.PKCS1v15(), hashes.SHA256())
        return True
    except Exception:
        return False
