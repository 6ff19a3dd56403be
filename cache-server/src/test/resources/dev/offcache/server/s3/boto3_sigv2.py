"""boto3 with its defaults against an S3 endpoint (S3ApiMatchesOriginTest): a presigned URL made without a
signature_version (Signature Version 2 query auth where botocore still defaults to it), fetched as made, with its
signature tampered and already expired; then a client signing headers with Signature Version 2 ("s3") reading,
heading and listing. Keys come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY.

usage: boto3_sigv2.py ENDPOINT BUCKET KEY   (prints key=value lines)
"""
import hashlib
import os
import sys
import urllib.error
import urllib.request

import boto3
import botocore
from botocore.config import Config

endpoint, bucket, key = sys.argv[1:4]
print("botocore=" + botocore.__version__)


def fetch(url):
    try:
        with urllib.request.urlopen(urllib.request.Request(url)) as response:
            return "%d %s" % (response.status, hashlib.sha256(response.read()).hexdigest())
    except urllib.error.HTTPError as error:
        body = error.read().decode("utf-8", "replace")
        code = body.split("<Code>")[1].split("</Code>")[0] if "<Code>" in body else "-"
        return "%d %s" % (error.code, code)


default = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                       config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))
url = default.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": key}, ExpiresIn=300)
print("presigned-version=" + ("2" if "AWSAccessKeyId=" in url else "4"))
print("presigned=" + fetch(url))
signature = "Signature=" if "AWSAccessKeyId=" in url else "X-Amz-Signature="
at = url.index(signature) + len(signature)
print("tampered=" + fetch(url[:at] + ("B" if url[at] != "B" else "C") + url[at + 1:]))
print("expired=" + fetch(default.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": key},
                                                        ExpiresIn=-60)))

v2 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  config=Config(signature_version="s3", s3={"addressing_style": "path"},
                                retries={"max_attempts": 1}))
v2url = v2.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": key}, ExpiresIn=300)
print("v2-presigned=" + fetch(v2url))


def answer(name, call):
    try:
        print(name + "=" + call())
    except botocore.exceptions.ClientError as error:
        print(name + "=" + error.response["Error"]["Code"])


def ranged():
    body = v2.get_object(Bucket=bucket, Key=key, Range="bytes=10-99")["Body"].read()
    return "%d %s" % (len(body), hashlib.sha256(body).hexdigest())


answer("v2-range", ranged)
answer("v2-head", lambda: "%d" % v2.head_object(Bucket=bucket, Key=key)["ContentLength"])
answer("v2-listed", lambda: ",".join(o["Key"] for o in v2.list_objects(Bucket=bucket, Prefix=key)["Contents"]))
try:
    v2.get_object(Bucket=bucket, Key=key + ".missing")
    print("v2-missing=found")
except botocore.exceptions.ClientError as error:
    print("v2-missing=" + error.response["Error"]["Code"])
wrong = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                     aws_access_key_id=os.environ["AWS_ACCESS_KEY_ID"], aws_secret_access_key="wrong-secret-0000",
                     config=Config(signature_version="s3", s3={"addressing_style": "path"},
                                   retries={"max_attempts": 1}))
try:
    wrong.head_object(Bucket=bucket, Key=key)
    print("v2-wrong-secret=accepted")
except botocore.exceptions.ClientError as error:
    print("v2-wrong-secret=" + error.response["Error"]["Code"])
