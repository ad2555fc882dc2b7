// OCSP responses (RFC 6960) for the TLS hosts to staple: `revoked` staples
// one saying revoked, `good` one saying good (docs/tls.md, "OCSP stapling").
// Each is signed by the issuing CA itself, the kept intermediate (RFC 6960
// 4.2.2.2: no delegated responder certificate to check), and made with the
// ASN.1 schemas of @peculiar/asn1-ocsp, from the author of @peculiar/x509.
import { createHash, createPrivateKey, sign } from 'node:crypto';
import {
  BasicOCSPResponse, CertID, CertStatus, id_pkix_ocsp_basic, KeyHash, OCSPResponse, OCSPResponseStatus,
  ResponderID, ResponseBytes, ResponseData, RevokedInfo, SingleResponse,
} from '@peculiar/asn1-ocsp';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier, Certificate, CRLReason, CRLReasons } from '@peculiar/asn1-x509';
import type { Issued } from './x509.js';

/** SHA-1 names the certificate in a CertID: what OpenSSL's OCSP_cert_to_id (curl --cert-status) computes and compares. */
const OID_SHA1 = '1.3.14.3.2.26';
const OID_ECDSA_SHA256 = '1.2.840.10045.4.3.2';
/** A response is fresh for a week; the leaves (and these) are re-minted daily. */
const NEXT_UPDATE_MS = 7 * 86_400_000;

export type OcspStatus = 'good' | 'revoked';

export interface OcspSpec {
  /** The CA that issued the certificate, and signs the response. */
  readonly issuer: Issued;
  /** The certificate's serial, hexadecimal. */
  readonly serialHex: string;
  readonly status: OcspStatus;
  /** thisUpdate and producedAt; a revoked certificate's revocation time too. */
  readonly now: Date;
}

const arrayBuffer = (bytes: Uint8Array): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
const sha1 = (bytes: ArrayBuffer): ArrayBuffer => arrayBuffer(createHash('sha1').update(new Uint8Array(bytes)).digest());
/** GeneralizedTime without fractions of a second (RFC 5280 4.1.2.5.2 wants none). */
const wholeSeconds = (at: Date): Date => new Date(Math.floor(at.getTime() / 1000) * 1000);

/** The DER of a successful OCSP response about one certificate, signed with ECDSA-SHA256 by its issuer. */
export function ocspResponseDer(spec: OcspSpec): Buffer {
  const issuer = AsnConvert.parse(spec.issuer.cert.rawData, Certificate);
  const issuerKey = issuer.tbsCertificate.subjectPublicKeyInfo.subjectPublicKey;
  const certID = new CertID({
    hashAlgorithm: new AlgorithmIdentifier({ algorithm: OID_SHA1, parameters: null }),
    issuerNameHash: new OctetString(sha1(AsnConvert.serialize(issuer.tbsCertificate.subject))),
    issuerKeyHash: new OctetString(sha1(issuerKey)),
    serialNumber: arrayBuffer(Buffer.from(spec.serialHex, 'hex')),
  });
  const now = wholeSeconds(spec.now);
  const certStatus = spec.status === 'good'
    ? new CertStatus({ good: null })
    : new CertStatus({ revoked: new RevokedInfo({ revocationTime: now, revocationReason: new CRLReason(CRLReasons.keyCompromise) }) });
  const tbs = new ResponseData({
    responderID: new ResponderID({ byKey: new KeyHash(sha1(issuerKey)) }),
    producedAt: now,
    responses: [new SingleResponse({ certID, certStatus, thisUpdate: now, nextUpdate: new Date(now.getTime() + NEXT_UPDATE_MS) })],
  });
  const tbsDer = AsnConvert.serialize(tbs);
  const signature = sign('sha256', new Uint8Array(tbsDer), { key: createPrivateKey(spec.issuer.keyPem), dsaEncoding: 'der' });
  const basic = new BasicOCSPResponse({
    tbsResponseData: tbs,
    signatureAlgorithm: new AlgorithmIdentifier({ algorithm: OID_ECDSA_SHA256 }),
    signature: arrayBuffer(signature),
  });
  const response = new OCSPResponse({
    responseStatus: OCSPResponseStatus.successful,
    responseBytes: new ResponseBytes({ responseType: id_pkix_ocsp_basic, response: new OctetString(AsnConvert.serialize(basic)) }),
  });
  return Buffer.from(AsnConvert.serialize(response));
}

/** What a stapled response says, read back (tests, and the self-check). */
export interface OcspReading {
  readonly status: OcspStatus | 'unknown';
  readonly serialHex: string;
  readonly thisUpdate: Date;
  readonly nextUpdate: Date | undefined;
  readonly revocationReason: string | undefined;
  /** The signed bytes and the signature, to check against the issuer's key. */
  readonly tbsDer: Buffer;
  readonly signature: Buffer;
}

export function readOcspResponse(der: Uint8Array): OcspReading {
  const response = AsnConvert.parse(der, OCSPResponse);
  if (response.responseStatus !== OCSPResponseStatus.successful || response.responseBytes?.responseType !== id_pkix_ocsp_basic) {
    throw new Error(`not a successful basic OCSP response (status ${response.responseStatus})`);
  }
  const basic = AsnConvert.parse(response.responseBytes.response.buffer, BasicOCSPResponse);
  const single = basic.tbsResponseData.responses[0];
  if (single === undefined) throw new Error('an OCSP response about no certificate');
  const { certStatus } = single;
  const status = certStatus.revoked !== undefined ? 'revoked' : certStatus.good !== undefined ? 'good' : 'unknown';
  return {
    status,
    serialHex: Buffer.from(single.certID.serialNumber).toString('hex'),
    thisUpdate: single.thisUpdate,
    nextUpdate: single.nextUpdate,
    revocationReason: certStatus.revoked?.revocationReason?.toString(),
    tbsDer: Buffer.from(basic.tbsResponseDataRaw ?? AsnConvert.serialize(basic.tbsResponseData)),
    signature: Buffer.from(basic.signature),
  };
}
