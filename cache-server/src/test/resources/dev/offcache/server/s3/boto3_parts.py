"""Reads parts of a multipart object with boto3's get_object(PartNumber=...): prints, per part, the status, the
part count and the SHA-256 of the body, or the error code. Usage: boto3_parts.py ENDPOINT BUCKET KEY PARTS..."""
import hashlib
import sys

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

endpoint, bucket, key = sys.argv[1:4]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  config=Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                retries={"max_attempts": 1}))
for part in sys.argv[4:]:
    try:
        answer = s3.get_object(Bucket=bucket, Key=key, PartNumber=int(part))
        body = answer["Body"].read()
        print("part%s=%d %s %s" % (part, answer["ResponseMetadata"]["HTTPStatusCode"],
                                    answer.get("PartsCount"), hashlib.sha256(body).hexdigest()))
    except ClientError as error:
        print("part%s=%s %s" % (part, error.response["ResponseMetadata"]["HTTPStatusCode"],
                                error.response["Error"]["Code"]))
